import { Client, type ClientConfig } from 'pg';
import type { DataSource } from 'typeorm';
import { quoteIdent } from './data-source';

/** How long a lost or refused LISTEN connection waits before the next attempt. */
export const LISTEN_RETRY_MS = 5_000;

/** A dedicated connection's options, built from a TypeORM data source's (LISTEN cannot use a pooled connection). */
export function pgClientConfigOf(ds: DataSource, purpose: string): ClientConfig {
  const o = ds.options as unknown as Record<string, unknown>;
  const config: ClientConfig = {
    application_name: `${(o.applicationName as string | undefined) ?? 'pim'}-${purpose}`,
    connectionTimeoutMillis: 5_000,
    keepAlive: true,
  };
  if (typeof o.url === 'string') config.connectionString = o.url;
  if (o.host !== undefined) config.host = o.host as string;
  if (o.port !== undefined) config.port = o.port as number;
  if (o.username !== undefined) config.user = o.username as string;
  if (o.password !== undefined) config.password = o.password as string;
  if (o.database !== undefined) config.database = o.database as string;
  if (o.ssl !== undefined) config.ssl = o.ssl as ClientConfig['ssl'];
  return config;
}

export interface PgListenerOptions {
  config: ClientConfig;
  channel: string;
  /** A NOTIFY on the channel arrived (its payload, '' when none). */
  onNotify: (payload: string) => void;
  /**
   * The listener (re)connected: notifications sent while it was away are lost, so whoever relies
   * on them must catch up now (re-read, drop caches).
   */
  onListening?: () => void;
  /** The connection was lost or could not be made; it is retried every LISTEN_RETRY_MS. */
  onLost?: (err: unknown) => void;
  retryMs?: number;
}

/**
 * A Postgres LISTEN on one channel over a dedicated connection that comes back by itself. While
 * it is away `listening` is false; users that cannot tolerate missed notifications check it
 * (and fall back to reading the database).
 */
export class PgListener {
  private client: Client | null = null;
  private retry: NodeJS.Timeout | null = null;
  private stopped = true;

  constructor(private readonly opts: PgListenerOptions) {}

  /** Whether notifications are being received right now. */
  get listening(): boolean {
    return this.client !== null;
  }

  /** Starts listening; resolves after the first attempt (successful or not), never throws. */
  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    const client = this.client;
    this.client = null;
    if (client) await client.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.stopped || this.client) return;
    const client = new Client(this.opts.config);
    let lostAlready = false;
    const lost = (err?: unknown): void => {
      if (lostAlready) return;
      lostAlready = true;
      if (this.client === client) this.client = null;
      client.end().catch(() => undefined);
      if (this.stopped) return;
      this.opts.onLost?.(err);
      this.scheduleRetry();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (n) => {
      if (n.channel === this.opts.channel) this.opts.onNotify(n.payload ?? '');
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${quoteIdent(this.opts.channel)}`);
      if (this.stopped || lostAlready) {
        await client.end().catch(() => undefined);
        return;
      }
      this.client = client;
      this.opts.onListening?.();
    } catch (err) {
      lost(err);
    }
  }

  private scheduleRetry(): void {
    if (this.retry || this.stopped) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.connect();
    }, this.opts.retryMs ?? LISTEN_RETRY_MS);
    this.retry.unref();
  }
}
