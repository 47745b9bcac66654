import type { DataSource, EntityManager } from 'typeorm';
import { NotFoundError } from '@pim/errors';
import { RecordService } from '@pim/records';
import type { ListQuery } from '@pim/query';
import type { WebhookInput, WebhookView } from '@pim/resources';
import type { WebhookEntity } from './webhook.entity';
import { WEBHOOKS_STORE, newSigningSecret, webhookAddressPolicy, webhookResource } from './webhook.resource';
import type { AddressPolicy } from '@pim/outbound';
import type { Keyring } from '@pim/secrets';

export { newSigningSecret };

/** Options of the webhook service. */
export interface WebhookServiceOptions {
  /** The operator keys signing secrets are sealed with at rest (PIM_SECRETS_KEYS). */
  secrets: Keyring;
  /** Refuses IP-literal URLs delivery could never reach (the same policy delivery applies). Default: public addresses only. */
  policy?: AddressPolicy;
  /** How long the previous secret keeps signing after a rotation. Default 24 h. */
  secretOverlapMs?: number;
  /** Runs in the transaction of a webhook's delete: the app cancels its pending deliveries here. */
  onDelete?: (m: EntityManager, webhookId: string) => Promise<void>;
}

const DEFAULT_OVERLAP_MS = 24 * 3_600_000;

/**
 * Webhook configuration on the record engine (versions, If-Match, soft delete, one live webhook
 * per collection, the event in the same transaction), plus what only webhooks do: upsert by
 * collection, the signing secret shown once, its rotation, and disabling a gone receiver.
 */
export class WebhookService {
  private readonly records: RecordService<WebhookEntity, WebhookView, WebhookInput>;
  private readonly overlapMs: number;
  private readonly secrets: Keyring;

  constructor(ds: DataSource, opts: WebhookServiceOptions) {
    this.secrets = opts.secrets;
    this.records = new RecordService(
      ds,
      webhookResource(opts.policy ?? webhookAddressPolicy(), opts.secrets, opts.onDelete),
      WEBHOOKS_STORE,
    );
    this.overlapMs = opts.secretOverlapMs ?? DEFAULT_OVERLAP_MS;
  }

  /** Creates the webhook of `input.collection`, or writes the given fields onto the live one. */
  async upsert(
    raw: unknown,
    expectedVersion?: number,
  ): Promise<{ webhook: WebhookView; created: boolean; secret?: string }> {
    const r = await this.records.upsert(raw, expectedVersion);
    return {
      webhook: r.view,
      created: r.created,
      ...(r.created ? { secret: this.secrets.open(r.record.secret) } : {}),
    };
  }

  /** Creates a webhook; its collection must not have a live one. Its secret is shown here only. */
  async create(raw: unknown): Promise<{ webhook: WebhookView; secret: string }> {
    const r = await this.records.createRecord(raw);
    return { webhook: r.view, secret: this.secrets.open(r.record.secret) };
  }

  /** One live webhook. */
  get(id: string): Promise<WebhookView> {
    return this.records.get(id);
  }

  /** Replaces every writable field (omitted optional fields are cleared to their defaults). */
  replace(id: string, raw: unknown, expectedVersion?: number): Promise<WebhookView> {
    return this.records.replace(id, raw, expectedVersion);
  }

  /** Applies a JSON merge patch (RFC 7396) to the writable fields. */
  patch(id: string, patch: unknown, expectedVersion?: number): Promise<WebhookView> {
    return this.records.patch(id, patch, expectedVersion);
  }

  /** Soft-deletes a webhook (with `onDelete` in its transaction); its collection becomes free for a new one. */
  remove(id: string, expectedVersion?: number): Promise<WebhookView> {
    return this.records.remove(id, expectedVersion);
  }

  /** A page of live webhooks and the total that match. */
  list(query: ListQuery): Promise<{ data: WebhookView[]; total: number }> {
    return this.records.list(query);
  }

  /**
   * Replaces the signing secret. The previous one keeps signing (a second signature in
   * `webhook-signature`) until the overlap ends, so receivers can switch without losing events.
   */
  async rotateSecret(
    id: string,
    expectedVersion?: number,
  ): Promise<{ webhook: WebhookView; secret: string; previousSecretExpiresAt: Date }> {
    const expires = new Date(Date.now() + this.overlapMs);
    const secret = newSigningSecret();
    const r = await this.records.mutate(id, expectedVersion, (w) => {
      // The previous secret stays as stored (sealed, or in clear if it predates sealing: re-sealed later).
      w.previous_secret = w.secret;
      w.previous_secret_expires_at = expires;
      w.secret = this.secrets.seal(secret);
    });
    return { webhook: r.view, secret, previousSecretExpiresAt: expires };
  }

  /** Disables a webhook whose receiver answered 410 Gone (a system change: no actor). Returns false if it already was. */
  async disableGone(id: string): Promise<boolean> {
    try {
      const r = await this.records.mutate(id, undefined, (w) => {
        if (!w.enabled) return false;
        w.enabled = false;
      });
      return r.changed;
    } catch (err) {
      if (err instanceof NotFoundError) return false;
      throw err;
    }
  }
}
