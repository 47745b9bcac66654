import { randomBytes } from 'node:crypto';
import { ValidationError, type ErrorDetail } from '@pim/errors';
import { declaredRecord, type RecordStore } from '@pim/records';
import { Webhook } from '@pim/resources';
import { WebhookEntity, type KeyValuePair } from './webhook.entity';
import { AddressPolicy, checkTargetUrl, type AllowedRange } from '@pim/outbound';
import type { Keyring } from '@pim/secrets';
import type { EntityManager } from 'typeorm';

/** How the webhooks app's records are stored: its events come from `webhooks`. */
export const WEBHOOKS_STORE: RecordStore = { source: 'webhooks' };

/** Keys every delivery payload has; a webhook's body pairs may not replace them. */
export const RESERVED_BODY_KEYS = ['type', 'timestamp', 'schema_version', 'data'];

/**
 * The key a body pair cannot have: it would be a key of the delivered JSON, and `__proto__` is the
 * one key a JSON object cannot carry into a plain JavaScript object (a receiver's copy of the
 * payload drops it); refused like a `__proto__` key of any request body (the gateway's json-guard).
 */
const PROTO_KEY = '__proto__';

/**
 * The address policy of webhook targets, at write time and at delivery: public addresses only,
 * plus the ranges the operator allows; its refusals name webhooks and WEBHOOKS_ALLOWED_TARGETS.
 */
export function webhookAddressPolicy(allowed: AllowedRange[] = []): AddressPolicy {
  return new AddressPolicy(allowed, { subject: 'webhooks', setting: 'WEBHOOKS_ALLOWED_TARGETS' });
}

/** A new signing secret in the Standard Webhooks form: `whsec_` + base64 of 24 random bytes. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/**
 * Rules beyond the shape: an IP-literal (or localhost) URL must be one delivery may reach, and
 * body pairs may not replace the payload's own keys nor be named `__proto__`.
 */
function checkTarget(policy: AddressPolicy, url: string | null, body: KeyValuePair[]): void {
  const details: ErrorDetail[] = [];
  if (url) {
    const verdict = checkTargetUrl(policy, url);
    if (!verdict.allowed) details.push({ field: 'url', message: verdict.reason });
  }
  body.forEach((pair, i) => {
    if (RESERVED_BODY_KEYS.includes(pair.key))
      details.push({ field: `body.${i}.key`, message: `'${pair.key}' is part of every payload; choose another key` });
    if (pair.key === PROTO_KEY)
      details.push({ field: `body.${i}.key`, message: `the key ${PROTO_KEY} cannot be stored; rename it` });
  });
  if (details.length > 0) {
    throw new ValidationError(details.map((d) => `${d.field}: ${d.message}`).join('; '), {
      title: 'Invalid webhook',
      solution:
        'Point the webhook at a public address (or ask the operator to allow the range) and rename reserved body keys and __proto__',
      details,
    });
  }
}

/**
 * Webhooks on the record engine: one live webhook per collection (the handle), a signing secret
 * made at creation, stored sealed with the operator key (`secrets`) and never shown by the view,
 * targets checked against the address policy on every write; `onDelete` runs in a delete's
 * transaction (the wiring cancels the pending deliveries).
 */
export function webhookResource(
  policy: AddressPolicy,
  secrets: Keyring,
  onDelete?: (m: EntityManager, webhookId: string) => Promise<void>,
) {
  return declaredRecord(Webhook, {
    entity: WebhookEntity,
    handle: 'collection',
    handleTaken: () => 'This collection already has a webhook',
    derived: (_input, prev) =>
      prev === null
        ? { secret: secrets.seal(newSigningSecret()), previous_secret: null, previous_secret_expires_at: null }
        : {},
    hooks: {
      beforeWrite: async (_m, next) => checkTarget(policy, next.url, next.body),
      afterDelete: async (m, webhook) => onDelete?.(m, webhook._id),
    },
  });
}
