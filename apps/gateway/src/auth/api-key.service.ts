import type { DataSource } from 'typeorm';
import { LRUCache } from 'lru-cache';
import { AuthenticationError, NotFoundError, ValidationError } from '@pim/errors';
import { newId, requireId } from '@pim/ids';
import { authorName } from '@pim/logging';
import { applyListQuery, validateListQuery, type ListQuery } from '@pim/query';
import { LISTEN_PURPOSE, PgListener, pgClientConfigOf, translatePgError } from '@pim/db';
import type { Logger } from '@pim/logging';
import { ApiKeyEntity } from './api-key.entity';
import { apiKeyListDecl, type ApiKeyInput, type ApiKeyView } from './api-key.schemas';
import { newToken, parseToken, secretMatches, hashSecret } from './api-key.token';
import type { Principal } from './scopes';

/** How often last_used_at is written for one key: often enough to be useful, rarely enough to be cheap. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** The API key as the API shows it. */
export function toView(k: ApiKeyEntity): ApiKeyView {
  const v: ApiKeyView = {
    _id: k._id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes,
    revoked: k.revoked,
    version: k.version,
    created_at: k.created_at.toISOString(),
    updated_at: k.updated_at.toISOString(),
  };
  if (k.user_id) v.user_id = k.user_id;
  if (k.user_name) v.user_name = k.user_name;
  if (k.expires_at) v.expires_at = k.expires_at.toISOString();
  if (k.last_used_at) v.last_used_at = k.last_used_at.toISOString();
  if (k.revoked_at) v.revoked_at = k.revoked_at.toISOString();
  if (k.created_by_name) v.created_by_name = k.created_by_name;
  return v;
}

const unauthenticated = (message: string) =>
  new AuthenticationError(message, {
    solution: 'Send "Authorization: Bearer pim_<prefix>_<secret>" with a key an admin created at /api/v1/api-keys',
  });

/** The channel the api_keys trigger (migration 1765152000000) notifies with the changed key's prefix. */
export const API_KEYS_CHANNEL = 'gateway_api_keys';

/** What verification needs of a key, kept between requests. */
interface KnownKey {
  secretHash: string;
  revoked: boolean;
  expiresAt: number | null;
  principal: Principal;
  /** When this replica last wrote last_used_at (or read it), ms. */
  lastUsedAt: number;
}

export interface ApiKeyServiceOptions {
  /** Keys kept verified in memory; 0 turns the cache off. */
  cacheSize?: number;
  /** The longest a cached key is trusted without reading it again; 0 turns the cache off. */
  cacheTtlMs?: number;
  logger?: Logger;
}

/**
 * API keys: creation (secret shown once), verification on every request, revocation, rotation.
 *
 * Verification reads the key once and then keeps it in memory (bounded, `cacheTtlMs` at most),
 * but only while a LISTEN on API_KEYS_CHANNEL is up: a trigger on api_keys notifies every
 * replica of any change to a key (revoke, rotate, scopes, expiry — by the API or by hand in SQL),
 * and the replica drops it before the next request. When the LISTEN connection is lost the
 * cache is emptied and bypassed until it is back, so a revocation is never missed.
 */
export class ApiKeyService {
  private readonly known: LRUCache<string, KnownKey> | null;
  private readonly listener: PgListener | null;
  /** Bumped by every invalidation: a read that started before one must not fill the cache. */
  private epoch = 0;

  constructor(
    private readonly ds: DataSource,
    opts: ApiKeyServiceOptions = {},
  ) {
    const size = opts.cacheTtlMs === 0 ? 0 : (opts.cacheSize ?? 10_000);
    this.known = size > 0 ? new LRUCache<string, KnownKey>({ max: size, ttl: opts.cacheTtlMs ?? 60_000 }) : null;
    this.listener =
      this.known === null
        ? null
        : new PgListener({
            config: pgClientConfigOf(ds, LISTEN_PURPOSE),
            channel: API_KEYS_CHANNEL,
            onNotify: (prefix) => this.forget(prefix),
            onListening: () => this.forget(),
            onLost: (err) => {
              this.forget();
              opts.logger?.warn(
                { err },
                'API key change notifications lost; verifying every request in the database until they are back',
              );
            },
          });
  }

  /** Starts listening for key changes (the cache is used only while this works). */
  async start(): Promise<void> {
    await this.listener?.start();
  }

  async stop(): Promise<void> {
    await this.listener?.stop();
  }

  /** Drops one key (by prefix) or every key from the cache. */
  private forget(prefix?: string): void {
    this.epoch += 1;
    if (prefix) this.known?.delete(prefix);
    else this.known?.clear();
  }

  /** Creates a key; the returned token is the only time its secret is seen. */
  async create(input: ApiKeyInput): Promise<{ key: ApiKeyView; token: string }> {
    if (input.expires_at && Date.parse(input.expires_at) <= Date.now()) {
      throw new ValidationError('expires_at must be in the future', {
        details: [{ field: 'expires_at', message: 'must be in the future' }],
      });
    }
    const { token, prefix, hash } = newToken();
    const now = new Date();
    const entity = this.ds.manager.create(ApiKeyEntity, {
      _id: newId(),
      name: input.name,
      prefix,
      secret_hash: hash,
      scopes: [...new Set(input.scopes)],
      user_id: input.user_id ?? null,
      user_name: input.user_name ?? null,
      expires_at: input.expires_at ? new Date(input.expires_at) : null,
      last_used_at: null,
      revoked: false,
      revoked_at: null,
      version: 1,
      created_at: now,
      updated_at: now,
      created_by_name: authorName(),
    });
    try {
      await this.ds.manager.insert(ApiKeyEntity, entity);
    } catch (err) {
      throw translatePgError(err);
    }
    return { key: toView(entity), token };
  }

  /**
   * Makes sure the operator's bootstrap key exists as an admin key (idempotent, safe for
   * replicas starting together); a changed secret under the same prefix replaces the old one.
   */
  async ensureBootstrap(token: string): Promise<void> {
    const parsed = parseToken(token);
    if (!parsed)
      throw new Error(
        'PIM_BOOTSTRAP_API_KEY must look like pim_<12 lowercase letters or digits>_<43 base64url characters>',
      );
    const now = new Date();
    await this.ds.query(
      `INSERT INTO api_keys (_id, name, prefix, secret_hash, scopes, user_name, revoked, version, created_at, updated_at)
       VALUES ($1, 'bootstrap admin key', $2, $3, '{admin}', 'admin', false, 1, $4, $4)
       ON CONFLICT (prefix) DO UPDATE SET secret_hash = EXCLUDED.secret_hash, revoked = false, revoked_at = NULL
       WHERE api_keys.secret_hash <> EXCLUDED.secret_hash`,
      [newId(), parsed.prefix, hashSecret(parsed.secret), now],
    );
  }

  /** The caller a bearer token stands for; 401 for anything else. */
  async verify(token: string | undefined): Promise<Principal> {
    if (!token) throw unauthenticated('This route needs an API key');
    const parsed = parseToken(token);
    if (!parsed) throw unauthenticated('The API key is malformed');
    const cached = this.listener?.listening ? this.known?.get(parsed.prefix) : undefined;
    const key = cached ?? (await this.read(parsed.prefix));
    if (!key || !secretMatches(parsed.secret, key.secretHash)) throw unauthenticated('The API key is not valid');
    if (key.revoked) throw unauthenticated('The API key was revoked');
    if (key.expiresAt !== null && key.expiresAt <= Date.now()) throw unauthenticated('The API key has expired');
    if (Date.now() - key.lastUsedAt > LAST_USED_RESOLUTION_MS) {
      key.lastUsedAt = Date.now();
      // Best effort and off the request's path: a lost update only makes last_used_at older.
      void this.ds
        .query(
          `UPDATE api_keys SET last_used_at = now() WHERE _id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
          [key.principal.keyId],
        )
        .catch(() => undefined);
    }
    return key.principal;
  }

  /** Reads a key by prefix, and keeps it if no change was announced meanwhile. */
  private async read(prefix: string): Promise<KnownKey | undefined> {
    const epoch = this.epoch;
    const listening = this.listener?.listening ?? false;
    const row = await this.ds.manager.findOne(ApiKeyEntity, { where: { prefix } });
    if (!row) return undefined;
    const key: KnownKey = {
      secretHash: row.secret_hash,
      revoked: row.revoked,
      expiresAt: row.expires_at?.getTime() ?? null,
      principal: {
        keyId: row._id,
        prefix: row.prefix,
        scopes: row.scopes,
        user_id: row.user_id ?? undefined,
        user_name: row.user_name ?? undefined,
        key_name: row.name,
      },
      lastUsedAt: row.last_used_at?.getTime() ?? 0,
    };
    if (listening && this.listener?.listening && epoch === this.epoch) this.known?.set(prefix, key);
    return key;
  }

  /** One key. */
  async get(id: string): Promise<ApiKeyView> {
    return toView(await this.find(id));
  }

  /** A page of keys and the total that match. */
  async list(query: ListQuery): Promise<{ data: ApiKeyView[]; total: number }> {
    const q = validateListQuery(apiKeyListDecl, query);
    const [rows, total] = await applyListQuery(
      this.ds.manager.createQueryBuilder(ApiKeyEntity, 'k'),
      apiKeyListDecl,
      q,
      'k',
    ).getManyAndCount();
    return { data: rows.map(toView), total };
  }

  /** Revokes a key at once; it stays listed, marked revoked. */
  async revoke(id: string): Promise<ApiKeyView> {
    const key = await this.find(id);
    if (!key.revoked) {
      const now = new Date();
      Object.assign(key, { revoked: true, revoked_at: now, updated_at: now, version: key.version + 1 });
      await this.ds.manager.save(ApiKeyEntity, key);
      // This replica forgets at once; the others when the trigger's notification reaches them.
      this.forget(key.prefix);
    }
    return toView(key);
  }

  /** Replaces a key's secret (same prefix, same scopes); the old secret stops working at once. */
  async rotate(id: string): Promise<{ key: ApiKeyView; token: string }> {
    const key = await this.find(id);
    if (key.revoked) {
      throw new ValidationError('A revoked key cannot be rotated', { solution: 'Create a new key instead' });
    }
    const { token, hash } = newToken(key.prefix);
    Object.assign(key, { secret_hash: hash, updated_at: new Date(), version: key.version + 1 });
    await this.ds.manager.save(ApiKeyEntity, key);
    this.forget(key.prefix);
    return { key: toView(key), token };
  }

  private async find(id: string): Promise<ApiKeyEntity> {
    requireId(id, 'API key');
    const key = await this.ds.manager.findOne(ApiKeyEntity, { where: { _id: id } });
    if (!key) throw new NotFoundError(`No API key with _id '${id}'`, { title: 'API key not found' });
    return key;
  }
}
