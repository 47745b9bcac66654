import { Client, type ClientConfig } from 'pg';
import type { DataSource } from 'typeorm';
import { quoteIdent } from './data-source';

/** How long a lost or refused LISTEN connection waits before the next attempt. */
export const LISTEN_RETRY_MS = 5_000;

/**
 * What every listener of a process names its connection after the app's name (`<app>-listen`): one
 * settings, so one shared connection (ListenConnection).
 */
export const LISTEN_PURPOSE = 'listen';

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

/** One listener's part of a shared connection. */
interface Subscription {
  channel: string;
  onNotify: (payload: string) => void;
  onListening?: () => void;
  onLost?: (err: unknown) => void;
}

/**
 * The one LISTEN connection of a process to a database (per connection settings), shared by every
 * PgListener on it whatever its channel: a process of an app has several loops woken by NOTIFY
 * (the outbox relay, its workers) and each used to hold a connection of its own, up to four per
 * process — N replicas of seven apps multiply them against one Postgres's connection limit. It
 * comes back by itself; every listener hears when it is lost and when it listens again.
 */
class ListenConnection {
  private client: Client | null = null;
  private connecting: Promise<void> | null = null;
  private retry: NodeJS.Timeout | null = null;
  private readonly subscriptions = new Set<Subscription>();
  /** The channels LISTENed on the current connection. */
  private readonly channels = new Set<string>();

  constructor(
    private readonly config: ClientConfig,
    private readonly retryMs: number,
    private readonly closed: () => void,
  ) {}

  /** Adds a listener; resolves once its channel is listened to, or the attempt to connect failed. */
  async add(sub: Subscription): Promise<void> {
    this.subscriptions.add(sub);
    if (this.client === null) await this.connect();
    else await this.listenTo(this.client, sub);
  }

  async remove(sub: Subscription): Promise<void> {
    this.subscriptions.delete(sub);
    if (this.subscriptions.size > 0) return;
    this.closed();
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    const client = this.client;
    this.client = null;
    this.channels.clear();
    if (client) await client.end().catch(() => undefined);
  }

  listens(sub: Subscription): boolean {
    return this.client !== null && this.subscriptions.has(sub) && this.channels.has(sub.channel);
  }

  private connect(): Promise<void> {
    this.connecting ??= this.open().finally(() => (this.connecting = null));
    return this.connecting;
  }

  private async open(): Promise<void> {
    if (this.client || this.subscriptions.size === 0) return;
    const client = new Client(this.config);
    let lostAlready = false;
    const lost = (err?: unknown): void => {
      if (lostAlready) return;
      lostAlready = true;
      const wasOurs = this.client === client;
      if (wasOurs) {
        this.client = null;
        this.channels.clear();
      }
      client.end().catch(() => undefined);
      if (this.subscriptions.size === 0) return;
      for (const sub of [...this.subscriptions]) sub.onLost?.(err);
      this.scheduleRetry();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (n) => {
      for (const sub of [...this.subscriptions]) if (sub.channel === n.channel) sub.onNotify(n.payload ?? '');
    });
    try {
      await client.connect();
      // Listeners added while connecting are listened to as well.
      for (let pending = this.unlistened(); pending.length > 0; pending = this.unlistened()) {
        for (const channel of new Set(pending.map((sub) => sub.channel))) {
          await client.query(`LISTEN ${quoteIdent(channel)}`);
          this.channels.add(channel);
        }
      }
      if (this.subscriptions.size === 0 || lostAlready) {
        this.channels.clear();
        await client.end().catch(() => undefined);
        return;
      }
      this.client = client;
      for (const sub of [...this.subscriptions]) sub.onListening?.();
    } catch (err) {
      this.channels.clear();
      lost(err);
    }
  }

  private unlistened(): Subscription[] {
    return [...this.subscriptions].filter((sub) => !this.channels.has(sub.channel));
  }

  /** Listens to the channel of a listener added to a connection already open. */
  private async listenTo(client: Client, sub: Subscription): Promise<void> {
    try {
      if (!this.channels.has(sub.channel)) {
        await client.query(`LISTEN ${quoteIdent(sub.channel)}`);
        this.channels.add(sub.channel);
      }
      if (this.listens(sub)) sub.onListening?.();
    } catch {
      // The connection failed: its 'error' or 'end' handler tells every listener and retries.
    }
  }

  private scheduleRetry(): void {
    if (this.retry || this.subscriptions.size === 0) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.connect();
    }, this.retryMs);
    this.retry.unref();
  }
}

/** The shared connections of this process, by their settings. */
const connections = new Map<string, ListenConnection>();

function connectionFor(config: ClientConfig, retryMs: number): ListenConnection {
  const key = JSON.stringify(config);
  let connection = connections.get(key);
  if (!connection) {
    connection = new ListenConnection(config, retryMs, () => connections.delete(key));
    connections.set(key, connection);
  }
  return connection;
}

/**
 * A Postgres LISTEN on one channel that comes back by itself, over the connection this process
 * shares with every other listener on the same database (ListenConnection). While it is away
 * `listening` is false; users that cannot tolerate missed notifications check it (and fall back
 * to reading the database).
 */
export class PgListener {
  private connection: ListenConnection | null = null;
  private readonly subscription: Subscription;

  constructor(private readonly opts: PgListenerOptions) {
    this.subscription = {
      channel: opts.channel,
      onNotify: (payload) => opts.onNotify(payload),
      onListening: () => opts.onListening?.(),
      onLost: (err) => opts.onLost?.(err),
    };
  }

  /** Whether notifications are being received right now. */
  get listening(): boolean {
    return this.connection?.listens(this.subscription) ?? false;
  }

  /** Starts listening; resolves after the first attempt (successful or not), never throws. */
  async start(): Promise<void> {
    if (this.connection) return;
    this.connection = connectionFor(this.opts.config, this.opts.retryMs ?? LISTEN_RETRY_MS);
    await this.connection.add(this.subscription);
  }

  async stop(): Promise<void> {
    const connection = this.connection;
    this.connection = null;
    await connection?.remove(this.subscription);
  }
}
