import { Client } from 'pg';

/** An event as its app's outbox holds it: the source of truth for what must be delivered. */
export interface OutboxRow {
  id: string;
  /** The app's schema. */
  schema: string;
  type: string;
  recordId: string | null;
  /** The record's version in the event's data, when it has one. */
  version: number | null;
  occurredAt: Date;
  published: boolean;
}

/**
 * Reads what the apps stored, for settling and checking: every outbox, the webhooks inbox, the
 * state of jobs and approvals. Tests read the database only for what the API does not show.
 */
export class Truth {
  private schemas: string[] = [];

  private constructor(private readonly pg: Client) {}

  static async open(url: string): Promise<Truth> {
    let pg = new Client({ connectionString: url });
    // The machine's Postgres is shared with other test runs: out of connections, wait a little.
    for (let attempt = 1; ; attempt++) {
      try {
        await pg.connect();
        break;
      } catch (err) {
        if (attempt === 10 || !/too many clients/.test((err as Error).message)) throw err;
        await new Promise((r) => setTimeout(r, 3_000));
        pg = new Client({ connectionString: url });
      }
    }
    const truth = new Truth(pg);
    const { rows } = await pg.query<{ s: string }>(
      "SELECT table_schema AS s FROM information_schema.tables WHERE table_name = 'outbox' ORDER BY 1",
    );
    truth.schemas = rows.map((r) => r.s);
    return truth;
  }

  /** The time of the database (what `occurred_at` is measured in). */
  async now(): Promise<Date> {
    return (await this.pg.query<{ now: Date }>('SELECT clock_timestamp() AS now')).rows[0].now;
  }

  /** Every event of every outbox since `since`. */
  async events(since: Date): Promise<OutboxRow[]> {
    const all: OutboxRow[] = [];
    for (const schema of this.schemas) {
      const { rows } = await this.pg.query(
        `SELECT id, type, record_id, (envelope::jsonb -> 'data' ->> 'version')::int AS version, occurred_at,
                published_at IS NOT NULL AS published
           FROM "${schema}".outbox WHERE occurred_at >= $1`,
        [since],
      );
      for (const r of rows)
        all.push({
          id: String(r.id).trim(),
          schema,
          type: r.type,
          recordId: r.record_id ? String(r.record_id).trim() : null,
          version: r.version,
          occurredAt: r.occurred_at,
          published: r.published,
        });
    }
    return all;
  }

  /** Unpublished events by schema (only schemas with some). */
  async unpublished(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const schema of this.schemas) {
      const { rows } = await this.pg.query(
        `SELECT count(*)::int AS n FROM "${schema}".outbox WHERE published_at IS NULL`,
      );
      if (rows[0].n > 0) out[schema] = rows[0].n;
    }
    return out;
  }

  /** Deliveries still to be attempted (pending). */
  async pendingDeliveries(): Promise<number> {
    const { rows } = await this.pg.query("SELECT count(*)::int AS n FROM webhooks.deliveries WHERE status = 'pending'");
    return rows[0].n;
  }

  /** Of these event ids, those the fan-out has not recorded yet. */
  async notInInbox(ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.pg.query<{ id: string }>(
      'SELECT x AS id FROM unnest($1::text[]) AS x WHERE NOT EXISTS (SELECT 1 FROM webhooks.inbox i WHERE i.event_id = x)',
      [ids],
    );
    return rows.map((r) => r.id);
  }

  /** Imports and exports not in a final state (queued or running). */
  async runningJobs(): Promise<number> {
    const { rows } = await this.pg.query(
      `SELECT (SELECT count(*) FROM io_jobs.imports WHERE status IN ('queued', 'processing'))::int
            + (SELECT count(*) FROM io_jobs.exports WHERE status IN ('pending', 'in_progress'))::int AS n`,
    );
    return rows[0].n;
  }

  /** Approved product approvals whose change the catalog has not applied yet. */
  async pendingApplications(): Promise<number> {
    const { rows } = await this.pg.query(
      "SELECT count(*)::int AS n FROM workflow.product_approvals WHERE application ->> 'status' = 'pending'",
    );
    return rows[0].n;
  }

  async close(): Promise<void> {
    await this.pg.end();
  }
}
