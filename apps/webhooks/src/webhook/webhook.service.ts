import { randomBytes } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import {
  NotFoundError,
  PreconditionFailedError,
  ValidationError,
  fromZodError,
  ConflictError,
  type ErrorDetail,
} from '@pim/errors';
import { newId, requireId } from '@pim/ids';
import { currentContext } from '@pim/logging';
import { recordEvent } from '@pim/events';
import { applyListQuery, validateListQuery, type ListQuery } from '@pim/query';
import { translatePgError } from '@pim/db';
import {
  webhookInputSchema,
  webhookListDecl,
  webhookPatchSchema,
  type WebhookInput,
  type WebhookView,
} from '@pim/resources';
import { WebhookEntity, type KeyValuePair } from './webhook.entity';
import { AddressPolicy, isIpLiteral } from '../ssrf/address.policy';
import { RESERVED_BODY_KEYS } from '../delivery/delivery.sender';

const SOURCE = 'webhooks';
const COLLECTION = 'webhooks';
const UNIQUE = {
  UQ_webhooks_collection_live: { message: 'This collection already has a webhook', field: 'collection' },
};

/** A new signing secret in the Standard Webhooks form: `whsec_` + base64 of 24 random bytes. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** The webhook as the API shows it (never the secret, never the deletion fields). */
export function toView(w: WebhookEntity): WebhookView {
  const view: WebhookView = {
    _id: w._id,
    collection: w.collection,
    headers: w.headers,
    body: w.body,
    enabled: w.enabled,
    version: w.version,
    created_at: w.created_at.toISOString(),
    updated_at: w.updated_at.toISOString(),
  };
  if (w.url !== null) view.url = w.url;
  if (w.created_by_name !== null) view.created_by_name = w.created_by_name;
  return view;
}

function parseInput(raw: unknown): WebhookInput {
  const r = webhookInputSchema.safeParse(raw);
  if (!r.success) throw fromZodError(r.error, { title: 'Invalid webhook' });
  return r.data;
}

/** Options of the webhook service. */
export interface WebhookServiceOptions {
  /** Refuses IP-literal URLs delivery could never reach (the same policy delivery applies). Default: public addresses only. */
  policy?: AddressPolicy;
  /** How long the previous secret keeps signing after a rotation. Default 24 h. */
  secretOverlapMs?: number;
}

const DEFAULT_OVERLAP_MS = 24 * 3_600_000;

const checkId = (id: string) => requireId(id, 'webhook');

function checkVersion(w: WebhookEntity, expected: number | undefined): void {
  if (expected !== undefined && expected !== w.version) {
    throw new PreconditionFailedError(`The webhook is at version ${w.version}, not ${expected}`, {
      details: [{ field: 'If-Match', message: `current version is ${w.version}` }],
    });
  }
}

/** Webhook configuration: every write is one transaction with its event in the outbox. */
export class WebhookService {
  private readonly policy: AddressPolicy;
  private readonly overlapMs: number;

  constructor(
    private readonly ds: DataSource,
    opts: WebhookServiceOptions = {},
  ) {
    this.policy = opts.policy ?? new AddressPolicy();
    this.overlapMs = opts.secretOverlapMs ?? DEFAULT_OVERLAP_MS;
  }

  /**
   * Rules beyond the shape: an IP-literal (or localhost) URL must be one delivery may reach, and
   * body pairs may not replace the payload's own keys.
   */
  private checkTarget(url: string | null | undefined, body: KeyValuePair[] | undefined): void {
    const details: ErrorDetail[] = [];
    if (url) {
      const host = new URL(url).hostname;
      const literal = isIpLiteral(host) ? host : /^(.+\.)?localhost\.?$/i.test(host) ? '127.0.0.1' : null;
      const verdict = literal ? this.policy.check(literal) : ({ allowed: true } as const);
      if (!verdict.allowed) details.push({ field: 'url', message: verdict.reason });
    }
    (body ?? []).forEach((pair, i) => {
      if (RESERVED_BODY_KEYS.includes(pair.key))
        details.push({ field: `body.${i}.key`, message: `'${pair.key}' is part of every payload; choose another key` });
    });
    if (details.length > 0) {
      throw new ValidationError(details.map((d) => `${d.field}: ${d.message}`).join('; '), {
        title: 'Invalid webhook',
        solution:
          'Point the webhook at a public address (or ask the operator to allow the range) and rename reserved body keys',
        details,
      });
    }
  }

  /** Creates the webhook of `input.collection`, or writes the given fields onto the live one. */
  async upsert(
    raw: unknown,
    expectedVersion?: number,
  ): Promise<{ webhook: WebhookView; created: boolean; secret?: string }> {
    const input = parseInput(raw);
    this.checkTarget(input.url, input.body);
    // Two racing upserts of one collection: the loser's insert hits the unique index; it retries as an update.
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.ds.transaction(async (m) => {
          const current = await m.findOne(WebhookEntity, {
            where: { collection: input.collection, deleted: false },
            lock: { mode: 'pessimistic_write' },
          });
          if (!current) {
            if (expectedVersion !== undefined) {
              throw new PreconditionFailedError(`No webhook exists for collection '${input.collection}' yet`);
            }
            const { webhook, secret } = await this.insert(m, input);
            return { webhook, created: true, secret };
          }
          checkVersion(current, expectedVersion);
          const next = { ...current };
          if (input.url !== undefined) next.url = input.url;
          if (input.headers !== undefined) next.headers = input.headers;
          if (input.body !== undefined) next.body = input.body;
          if (input.enabled !== undefined) next.enabled = input.enabled;
          return { webhook: await this.write(m, next, 'updated'), created: false };
        });
      } catch (err) {
        const mapped = translatePgError(err, UNIQUE);
        if (mapped instanceof ConflictError && attempt === 0) continue;
        throw mapped;
      }
    }
  }

  /** Creates a webhook; its collection must not have a live one. */
  async create(raw: unknown): Promise<{ webhook: WebhookView; secret: string }> {
    const input = parseInput(raw);
    this.checkTarget(input.url, input.body);
    try {
      return await this.ds.transaction((m) => this.insert(m, input));
    } catch (err) {
      throw translatePgError(err, UNIQUE);
    }
  }

  /** One live webhook. */
  async get(id: string): Promise<WebhookView> {
    checkId(id);
    const w = await this.ds.manager.findOne(WebhookEntity, { where: { _id: id, deleted: false } });
    if (!w) throw notFound(id);
    return toView(w);
  }

  /** Replaces every writable field (omitted optional fields are cleared to their defaults). */
  async replace(id: string, raw: unknown, expectedVersion?: number): Promise<WebhookView> {
    checkId(id);
    const input = parseInput(raw);
    this.checkTarget(input.url, input.body);
    return this.mutate(id, expectedVersion, (w) => ({
      ...w,
      collection: input.collection,
      url: input.url ?? null,
      headers: input.headers ?? [],
      body: input.body ?? [],
      enabled: input.enabled ?? true,
    }));
  }

  /** Applies a JSON merge patch (RFC 7396) to the writable fields. */
  async patch(id: string, patch: unknown, expectedVersion?: number): Promise<WebhookView> {
    checkId(id);
    const r = webhookPatchSchema.safeParse(patch ?? {});
    if (!r.success) throw fromZodError(r.error, { title: 'Invalid webhook patch' });
    const p = r.data;
    this.checkTarget(p.url, p.body);
    return this.mutate(id, expectedVersion, (w) => ({
      ...w,
      collection: p.collection ?? w.collection,
      url: p.url === null ? null : (p.url ?? w.url),
      headers: p.headers ?? w.headers,
      body: p.body ?? w.body,
      enabled: p.enabled ?? w.enabled,
    }));
  }

  /** Soft-deletes a webhook; its collection becomes free for a new one. */
  async remove(id: string, expectedVersion?: number): Promise<WebhookView> {
    checkId(id);
    return this.ds.transaction(async (m) => {
      const w = await m.findOne(WebhookEntity, {
        where: { _id: id, deleted: false },
        lock: { mode: 'pessimistic_write' },
      });
      if (!w) throw notFound(id);
      checkVersion(w, expectedVersion);
      const now = new Date();
      w.deleted = true;
      w.deleted_at = now;
      w.deleted_by = currentContext()?.actor?.user_name ?? null;
      w.version += 1;
      w.updated_at = now;
      await m.save(WebhookEntity, w);
      // Nothing more goes to a deleted webhook; an attempt in flight loses its lease and only logs itself.
      await m.query(
        `UPDATE deliveries SET status = 'cancelled', next_attempt_at = NULL, lease_token = NULL, lease_expires_at = NULL,
                completed_at = now(), updated_at = now()
          WHERE webhook_id = $1 AND status = 'pending'`,
        [id],
      );
      const view = toView(w);
      await this.emit(m, 'deleted', view);
      return view;
    });
  }

  /**
   * Replaces the signing secret. The previous one keeps signing (a second signature in
   * `webhook-signature`) until the overlap ends, so receivers can switch without losing events.
   */
  async rotateSecret(
    id: string,
    expectedVersion?: number,
  ): Promise<{ webhook: WebhookView; secret: string; previousSecretExpiresAt: Date }> {
    checkId(id);
    return this.ds.transaction(async (m) => {
      const w = await m.findOne(WebhookEntity, {
        where: { _id: id, deleted: false },
        lock: { mode: 'pessimistic_write' },
      });
      if (!w) throw notFound(id);
      checkVersion(w, expectedVersion);
      const expires = new Date(Date.now() + this.overlapMs);
      w.previous_secret = w.secret;
      w.previous_secret_expires_at = expires;
      w.secret = newSigningSecret();
      const webhook = await this.write(m, w, 'updated');
      return { webhook, secret: w.secret, previousSecretExpiresAt: expires };
    });
  }

  /** Disables a webhook whose receiver answered 410 Gone (a system change: no actor). Returns false if it already was. */
  async disableGone(id: string): Promise<boolean> {
    return this.ds.transaction(async (m) => {
      const w = await m.findOne(WebhookEntity, {
        where: { _id: id, deleted: false },
        lock: { mode: 'pessimistic_write' },
      });
      if (!w || !w.enabled) return false;
      w.enabled = false;
      w.version += 1;
      w.updated_at = new Date();
      await m.save(WebhookEntity, w);
      await recordEvent(m, { source: SOURCE, collection: COLLECTION, action: 'updated', data: toView(w), actor: null });
      return true;
    });
  }

  /** A page of live webhooks and the total that match. */
  async list(query: ListQuery): Promise<{ data: WebhookView[]; total: number }> {
    const q = validateListQuery(webhookListDecl, query);
    const qb = this.ds.manager.createQueryBuilder(WebhookEntity, 'w').where('w.deleted = false');
    const [rows, total] = await applyListQuery(qb, webhookListDecl, q, 'w').getManyAndCount();
    return { data: rows.map(toView), total };
  }

  private async mutate(
    id: string,
    expectedVersion: number | undefined,
    change: (w: WebhookEntity) => WebhookEntity,
  ): Promise<WebhookView> {
    try {
      return await this.ds.transaction(async (m) => {
        const w = await m.findOne(WebhookEntity, {
          where: { _id: id, deleted: false },
          lock: { mode: 'pessimistic_write' },
        });
        if (!w) throw notFound(id);
        checkVersion(w, expectedVersion);
        return this.write(m, change(w), 'updated');
      });
    } catch (err) {
      throw translatePgError(err, UNIQUE);
    }
  }

  private async insert(m: EntityManager, input: WebhookInput): Promise<{ webhook: WebhookView; secret: string }> {
    const now = new Date();
    const entity = m.create(WebhookEntity, {
      _id: newId(),
      collection: input.collection,
      url: input.url ?? null,
      headers: input.headers ?? [],
      body: input.body ?? [],
      enabled: input.enabled ?? true,
      secret: newSigningSecret(),
      previous_secret: null,
      previous_secret_expires_at: null,
      version: 1,
      created_at: now,
      updated_at: now,
      created_by_name: currentContext()?.actor?.user_name ?? null,
      deleted: false,
      deleted_at: null,
      deleted_by: null,
    });
    await m.insert(WebhookEntity, entity);
    const webhook = toView(entity);
    await this.emit(m, 'created', webhook);
    return { webhook, secret: entity.secret };
  }

  private async write(m: EntityManager, w: WebhookEntity, action: 'updated'): Promise<WebhookView> {
    w.version += 1;
    w.updated_at = new Date();
    await m.save(WebhookEntity, w);
    const view = toView(w);
    await this.emit(m, action, view);
    return view;
  }

  private async emit(m: EntityManager, action: string, data: WebhookView): Promise<void> {
    const ctx = currentContext();
    await recordEvent(m, {
      source: SOURCE,
      collection: COLLECTION,
      action,
      data,
      actor: ctx?.actor,
      requestId: ctx?.requestId,
    });
  }
}

function notFound(id: string): NotFoundError {
  return new NotFoundError(`No webhook with _id '${id}'`, {
    title: 'Webhook not found',
    solution: 'List webhooks with GET /api/v1/webhooks to find the right _id',
  });
}
