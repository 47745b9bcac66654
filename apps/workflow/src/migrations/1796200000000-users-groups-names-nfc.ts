import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A live users group whose name could not be stored in NFC: another live group has that name already. */
interface NameClash {
  _id: string;
  name: string;
  taken_by: string;
}

/**
 * Users groups' names in Unicode NFC, as the API stores them from now on: a live name written with
 * decomposed accents (NFD: `e` and a combining acute) is rewritten composed (`é`), so a group is
 * found and kept unique by its name however the name is typed. The text shown does not change
 * (both forms read the same), so no version or event comes with it. A name whose NFC form another
 * live group has already is neither merged nor renamed: it is left as it is and reported, one
 * warning line naming both groups, for someone to rename one of them.
 */
export class UsersGroupsNamesNfc1796200000000 implements MigrationInterface {
  name = 'UsersGroupsNamesNfc1796200000000';

  async up(q: QueryRunner): Promise<void> {
    const rows: { _id: string; nfc: string }[] = await q.query(
      `SELECT _id, normalize(name, NFC) AS nfc FROM users_groups
       WHERE deleted = false AND name IS NOT NFC NORMALIZED ORDER BY _id`,
    );
    const clashes: NameClash[] = [];
    for (const row of rows) {
      const taken: { _id: string }[] = await q.query(
        `SELECT _id FROM users_groups WHERE deleted = false AND name = $1 AND _id <> $2 ORDER BY _id LIMIT 1`,
        [row.nfc, row._id],
      );
      if (taken.length > 0) {
        clashes.push({ _id: row._id, name: row.nfc, taken_by: taken[0]._id });
        continue;
      }
      await q.query(`UPDATE users_groups SET name = $2, search_text = normalize(search_text, NFC) WHERE _id = $1`, [
        row._id,
        row.nfc,
      ]);
    }
    if (clashes.length > 0) {
      console.warn(
        JSON.stringify({
          level: 'warn',
          service: 'workflow-migrate',
          msg: `${clashes.length} users group name(s) left as they were: written in NFC, each would be the name of another live group (rename one of the two)`,
          clashes,
        }),
      );
    }
  }

  async down(): Promise<void> {
    // The decomposed spellings are not kept: NFC names read the same, so there is nothing to undo.
  }
}
