import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * 1. Every change to an API key other than its last_used_at notifies `gateway_api_keys` with the
 *    key's prefix, whoever makes it (the API, an operator in psql): gateway replicas keep verified
 *    keys in memory only while they hear these (see ApiKeyService).
 * 2. The rate-limit counters become UNLOGGED: they are rewritten on every request, are worth
 *    nothing after a crash (a window restarts), and WAL for them would be the gateway's most
 *    frequent fsync.
 */
export class ApiKeyChangesAndUnloggedLimits1765152000000 implements MigrationInterface {
  name = 'ApiKeyChangesAndUnloggedLimits1765152000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE FUNCTION "api_keys_notify_change"() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF TG_OP = 'DELETE' THEN
           PERFORM pg_notify('gateway_api_keys', OLD.prefix);
         ELSIF (to_jsonb(OLD) - 'last_used_at') IS DISTINCT FROM (to_jsonb(NEW) - 'last_used_at') THEN
           PERFORM pg_notify('gateway_api_keys', OLD.prefix);
           IF NEW.prefix IS DISTINCT FROM OLD.prefix THEN PERFORM pg_notify('gateway_api_keys', NEW.prefix); END IF;
         END IF;
         RETURN NULL;
       END $$`,
    );
    await q.query(
      `CREATE TRIGGER "api_keys_notify_change" AFTER UPDATE OR DELETE ON "api_keys" FOR EACH ROW EXECUTE FUNCTION "api_keys_notify_change"()`,
    );
    await q.query(`ALTER TABLE "rate_limits" SET UNLOGGED`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "rate_limits" SET LOGGED`);
    await q.query(`DROP TRIGGER "api_keys_notify_change" ON "api_keys"`);
    await q.query(`DROP FUNCTION "api_keys_notify_change"()`);
  }
}
