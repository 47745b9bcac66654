/**
 * The environment of a platform started for fuzzing: rate limits out of the way (every request
 * carries the admin key, thousands a minute), and nothing sent outward — the generated URLs of
 * webhooks and channels are not ours to call, and the retries of failed sends would change tables
 * at any moment, between the checksums of the storage check.
 */
export const FUZZ_PLATFORM_ENV: Record<string, string> = {
  RATE_LIMIT_PER_MINUTE: '100000000',
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000000',
  WEBHOOKS_DELIVERY: 'false',
  PUBLISHER_SENDER: 'false',
};
