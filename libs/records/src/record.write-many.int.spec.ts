import { ConflictError, NotFoundError, PreconditionFailedError, ValidationError } from '@pim/errors';
import { newId } from '@pim/ids';
import { runWithContext } from '@pim/logging';
import type { LockRequest } from './record.resource';
import { RecordService, type WriteManyOutcome } from './record.service';
import { MINE, startWidgets, type WidgetEntity, type WidgetView, type WidgetsFixture } from './testing/widgets.fixture';

const ANA = '6740a1b2c3d4e5f601234567';
const BOB = '6740a1b2c3d4e5f601234568';

/** Runs a call as a named user (the name is what `created_by_name` and `deleted_by` keep). */
const as = <T>(user: 'Ana' | 'Bob', fn: () => Promise<T>) =>
  runWithContext({ requestId: `req-${user}`, actor: { user_id: user === 'Ana' ? ANA : BOB, user_name: user } }, fn);

/** Each outcome in a word: its status, with the error's HTTP status when it failed. */
const summary = (outcomes: WriteManyOutcome<WidgetView, WidgetEntity>[]) =>
  outcomes.map((o) => (o.status === 'failed' ? `failed ${o.error?.status}` : o.status));

// writeMany against a real Postgres: set-based statements, per-item outcomes, the outbox in the
// same transaction, the caller's sight, a crash and concurrent writers. Replaying a batch under an
// idempotency key is the gRPC layer's (record.grpc.ts), not writeMany's: not tested here.
describe('RecordService.writeMany (real Postgres)', () => {
  let fx: WidgetsFixture;

  beforeAll(async () => {
    fx = await startWidgets('writemany');
  }, 60_000);

  afterAll(async () => {
    await fx?.close();
  });

  beforeEach(async () => {
    await fx.reset();
  });

  const create = (code: string, over: Record<string, unknown> = {}) =>
    as('Ana', () => fx.service.create({ code, name: code, ...over }));

  it('creates many: version 1 each, outcomes and created events in the items’ order, defaults and arrays stored', async () => {
    const inputs = [
      {
        code: 'w-z',
        name: 'Zed',
        tags: ['a', 'b c', 'd,e'],
        data: { nested: { x: 1, list: [1, 'two', null] }, flag: true },
        price: 9.5,
      },
      { code: 'w-a', name: 'Ay' },
      { code: 'w-m', name: 'Em', tags: [MINE], data: { 'quote"d': "it's" }, price: 0 },
    ];
    const out = await as('Ana', () =>
      fx.service.writeMany(
        'create',
        inputs.map((input) => ({ input })),
      ),
    );
    expect(out.map((o) => o.index)).toEqual([0, 1, 2]);
    expect(summary(out)).toEqual(['created', 'created', 'created']);
    expect(out.map((o) => [o.view?.code, o.view?.version])).toEqual([
      ['w-z', 1],
      ['w-a', 1],
      ['w-m', 1],
    ]);
    expect(out[1].view).toMatchObject({ tags: [], data: {}, price: null, created_by_name: 'Ana' });

    const rows = await fx.rows(['w-z', 'w-a', 'w-m']);
    const byCode = new Map(rows.map((r) => [r.code, r]));
    expect(rows).toHaveLength(3);
    for (const [i, input] of inputs.entries()) {
      const row = byCode.get(input.code)!;
      expect(row).toMatchObject({
        _id: out[i].view!._id,
        version: 1,
        deleted: false,
        created_by_name: 'Ana',
        // The column the resource never writes takes the table's default.
        notes: [],
        tags: input.tags ?? [],
        data: input.data ?? {},
        price: input.price ?? null,
      });
    }

    // recordEvents gives the batch's events one occurred_at and ids made in the items' order, so
    // the relay's order (occurred_at, id) is the items' order.
    const events = await fx.events();
    expect(events.map((e) => e.type)).toEqual(['brands.created', 'brands.created', 'brands.created']);
    expect(new Set(events.map((e) => e.occurred_at)).size).toBe(1);
    expect(events.map((e) => e.data._id)).toEqual(out.map((o) => o.view!._id));
    expect(events.map((e) => e.data)).toEqual(out.map((o) => o.view));
    expect(events.map((e) => e.source)).toEqual(['test', 'test', 'test']);
    expect(events[0].actor).toEqual({ user_id: ANA, user_name: 'Ana' });
  });

  it('upserts new and existing codes: created or updated by one version, unchanged skipped, a code twice applied in turn', async () => {
    const one = await create('u-1', { tags: ['x'], price: 2 });
    const two = await create('u-2', { data: { k: 'v' } });
    const before = (await fx.events()).length;
    const out = await fx.service.writeMany(
      'upsert',
      [
        { input: { code: 'u-1', name: 'One again' } },
        { input: { code: 'u-new', name: 'New' } },
        { input: { code: 'u-2', name: 'u-2' } },
        { input: { code: 'u-dup', name: 'First', tags: ['t'] } },
        { input: { code: 'u-dup', name: 'Second', price: 3 } },
      ],
      { skipUnchanged: true },
    );
    expect(summary(out)).toEqual(['updated', 'created', 'unchanged', 'created', 'updated']);
    expect(out.map((o) => o.view?.version)).toEqual([2, 1, 1, 1, 2]);
    // An upsert writes the fields it gives onto the record: the others keep their values.
    expect(out[0].view).toMatchObject({ _id: one._id, name: 'One again', tags: ['x'], price: 2 });
    expect(out[2].view).toMatchObject({ _id: two._id, version: 1, data: { k: 'v' } });
    expect(out[4].view).toMatchObject({ _id: out[3].view!._id, name: 'Second', tags: ['t'], price: 3 });

    const rows = await fx.rows(['u-1', 'u-2', 'u-new', 'u-dup']);
    expect(rows.map((r) => [r.code, r.version, r.name])).toEqual([
      ['u-1', 2, 'One again'],
      ['u-2', 1, 'u-2'],
      ['u-dup', 2, 'Second'],
      ['u-new', 1, 'New'],
    ]);

    const events = (await fx.events()).slice(before);
    expect(events.map((e) => [e.type, e.data.code, e.data.version])).toEqual([
      ['brands.updated', 'u-1', 2],
      ['brands.created', 'u-new', 1],
      ['brands.created', 'u-dup', 1],
      ['brands.updated', 'u-dup', 2],
    ]);
    // Without skipUnchanged the same input is a write: a new version and its event.
    const again = await fx.service.writeMany('upsert', [{ input: { code: 'u-2', name: 'u-2' } }]);
    expect(summary(again)).toEqual(['updated']);
    expect((await fx.rows(['u-2']))[0].version).toBe(2);
    expect((await fx.events()).slice(before + 4).map((e) => [e.type, e.data.code])).toEqual([
      ['brands.updated', 'u-2'],
    ]);
  });

  it('fails refused items alone: bad input, a rule, a stale If-Match, an unknown id, a taken code', async () => {
    fx.steer.refuseName = 'bad';
    const [r1, r2, r3, r4, r5] = await Promise.all(['r-1', 'r-2', 'r-3', 'r-4', 'r-5'].map((c) => create(c)));
    const before = (await fx.events()).length;
    const updates = await fx.service.writeMany('update', [
      { id: r1._id, input: { code: 'r-1', name: 'Replaced', tags: ['new'] } },
      { id: r2._id, input: { name: '' }, patch: true },
      { id: r3._id, input: { name: 'bad' }, patch: true },
      { id: r4._id, input: { name: 'Late' }, patch: true, expectedVersion: 7 },
      { id: newId(), input: { name: 'Nobody' }, patch: true },
      { id: 'not-an-id', input: { name: 'Nobody' }, patch: true },
      { id: r5._id, input: { price: 4.25 }, patch: true, expectedVersion: 1 },
    ]);
    expect(summary(updates)).toEqual([
      'updated',
      'failed 400',
      'failed 400',
      'failed 412',
      'failed 404',
      'failed 400',
      'updated',
    ]);
    expect(updates[1].error).toBeInstanceOf(ValidationError);
    expect(updates[1].error?.details?.map((d) => d.field)).toEqual(['name']);
    expect(updates[2].error?.message).toBe("A widget cannot be called 'bad'");
    expect(updates[3].error).toBeInstanceOf(PreconditionFailedError);
    expect(updates[4].error).toBeInstanceOf(NotFoundError);
    expect(updates[6].view).toMatchObject({ name: 'r-5', price: 4.25, version: 2 });
    expect((await fx.rows(['r-1', 'r-2', 'r-3', 'r-4', 'r-5'])).map((r) => [r.code, r.version, r.name])).toEqual([
      ['r-1', 2, 'Replaced'],
      ['r-2', 1, 'r-2'],
      ['r-3', 1, 'r-3'],
      ['r-4', 1, 'r-4'],
      ['r-5', 2, 'r-5'],
    ]);
    // afterWrite ran for the stored updates only.
    expect(fx.steer.afterWrites).toEqual(['r-1', 'r-5']);

    const creates = await fx.service.writeMany('create', [
      { input: { code: 'c-1', name: 'C one' } },
      { input: { code: 'r-2', name: 'Taken' } },
      { input: { code: 'c-bad', name: 'bad' } },
      { input: { code: '', name: 'No code' } },
      { input: { code: 'c-2', name: 'C two' } },
      { input: { code: 'c-1', name: 'C one again' } },
    ]);
    expect(summary(creates)).toEqual(['created', 'failed 409', 'failed 400', 'failed 400', 'created', 'failed 409']);
    expect(creates[1].error).toBeInstanceOf(ConflictError);
    expect(creates[1].error?.details).toEqual([{ field: 'code', message: 'already taken' }]);
    expect((await fx.rows(['c-1', 'c-2', 'c-bad', 'r-2'])).map((r) => [r.code, r.name])).toEqual([
      ['c-1', 'C one'],
      ['c-2', 'C two'],
      ['r-2', 'r-2'],
    ]);

    // An upsert's If-Match needs the record at that version: stale, or no record yet, is a 412.
    const upserts = await fx.service.writeMany('upsert', [
      { input: { code: 'r-3', name: 'Three' }, expectedVersion: 1 },
      { input: { code: 'r-4', name: 'Four' }, expectedVersion: 2 },
      { input: { code: 'u-none', name: 'None' }, expectedVersion: 1 },
    ]);
    expect(summary(upserts)).toEqual(['updated', 'failed 412', 'failed 412']);
    expect(await fx.rows(['u-none'])).toEqual([]);

    const events = (await fx.events()).slice(before);
    expect(events.map((e) => [e.type, e.data.code])).toEqual([
      ['brands.updated', 'r-1'],
      ['brands.updated', 'r-5'],
      ['brands.created', 'c-1'],
      ['brands.created', 'c-2'],
      ['brands.updated', 'r-3'],
    ]);
  });

  it('fails alone an item refused by its lock, by its rename onto a taken code or after its statement ran', async () => {
    fx.steer.refuseLockName = 'locked';
    fx.steer.refuseAfterName = 'too late';
    const [a, b, c, d, e] = await Promise.all(['l-a', 'l-b', 'l-c', 'l-d', 'l-e'].map((code) => create(code)));
    const before = (await fx.events()).length;
    const out = await fx.service.writeMany('update', [
      { id: a._id, input: { code: 'l-c' }, patch: true },
      { id: b._id, input: { name: 'too late' }, patch: true },
      { id: c._id, input: { name: 'Fine' }, patch: true },
      { id: d._id, input: { name: 'locked' }, patch: true },
      { id: e._id, input: { code: 'l-free' }, patch: true },
    ]);
    expect(summary(out)).toEqual(['failed 409', 'failed 400', 'updated', 'failed 409', 'updated']);
    expect(out[0].error?.details).toEqual([{ field: 'code', message: 'already taken' }]);
    expect(out[1].error?.message).toBe("A widget cannot become 'too late'");
    expect(out[3].error?.message).toBe("The name 'locked' is locked");
    expect(
      (await fx.rows(['l-a', 'l-b', 'l-c', 'l-d', 'l-e', 'l-free'])).map((r) => [r.code, r.version, r.name]),
    ).toEqual([
      ['l-a', 1, 'l-a'],
      ['l-b', 1, 'l-b'],
      ['l-c', 2, 'Fine'],
      ['l-d', 1, 'l-d'],
      ['l-free', 2, 'l-e'],
    ]);
    expect((await fx.events()).slice(before).map((e) => [e.type, e.data.code])).toEqual([
      ['brands.updated', 'l-c'],
      ['brands.updated', 'l-free'],
    ]);
    // Two items renaming onto one free code: the first takes it, the second is a 409.
    const both = await fx.service.writeMany('update', [
      { id: a._id, input: { code: 'l-new' }, patch: true },
      { id: b._id, input: { code: 'l-new' }, patch: true },
    ]);
    expect(summary(both)).toEqual(['updated', 'failed 409']);
    // A create refused by its lock fails alone too.
    const creates = await fx.service.writeMany('create', [
      { input: { code: 'l-x', name: 'locked' } },
      { input: { code: 'l-y', name: 'Y' } },
    ]);
    expect(summary(creates)).toEqual(['failed 409', 'created']);
  });

  it('keeps a restricted caller to their sight: 404 by id, 409 by code, a write leaving sight refused', async () => {
    const mine = await create('s-mine', { tags: [MINE] });
    const mine2 = await create('s-mine2', { tags: [MINE, 'x'] });
    const other = await create('s-other', { tags: ['theirs'] });
    const before = (await fx.events()).length;
    fx.steer.restricted = true;

    const updates = await fx.service.writeMany('update', [
      { id: other._id, input: { name: 'Taken over' }, patch: true },
      { id: mine._id, input: { tags: ['x'] }, patch: true },
      { id: mine2._id, input: { name: 'Still mine' }, patch: true },
    ]);
    expect(summary(updates)).toEqual(['failed 404', 'failed 404', 'updated']);
    expect(updates[0].error?.message).toContain(other._id);
    expect(updates[1].error?.message).toContain('out of your sight');

    const upserts = await fx.service.writeMany('upsert', [
      { input: { code: 's-other', name: 'Mine now', tags: [MINE] } },
      { input: { code: 's-new', name: 'New', tags: [MINE] } },
      { input: { code: 's-hidden', name: 'Hidden', tags: [] } },
    ]);
    expect(summary(upserts)).toEqual(['failed 409', 'created', 'failed 404']);
    expect(upserts[0].error).toBeInstanceOf(ConflictError);

    const deletes = await fx.service.writeMany('delete', [{ id: other._id }]);
    expect(summary(deletes)).toEqual(['failed 404']);

    expect(
      (await fx.rows(['s-mine', 's-mine2', 's-other', 's-new', 's-hidden'])).map((r) => [
        r.code,
        r.version,
        r.name,
        r.tags,
        r.deleted,
      ]),
    ).toEqual([
      ['s-mine', 1, 's-mine', [MINE], false],
      ['s-mine2', 2, 'Still mine', [MINE, 'x'], false],
      ['s-new', 1, 'New', [MINE], false],
      ['s-other', 1, 's-other', ['theirs'], false],
    ]);
    expect((await fx.events()).slice(before).map((e) => [e.type, e.data.code])).toEqual([
      ['brands.updated', 's-mine2'],
      ['brands.created', 's-new'],
    ]);
  });

  it('writes nothing of a batch when a rule crashes on one of its items', async () => {
    fx.steer.crashName = 'boom';
    const kept = await create('k-1');
    const before = await fx.events();
    const codes = ['x-1', 'x-2', 'x-3', 'x-4', 'x-5'];
    await expect(
      fx.service.writeMany(
        'create',
        codes.map((code, i) => ({ input: { code, name: i === 2 ? 'boom' : code } })),
      ),
    ).rejects.toThrow("widget 'x-3' broke the rule");
    expect(await fx.rows(codes)).toEqual([]);
    // The same for updates: the rows stay as they were.
    await expect(
      fx.service.writeMany('upsert', [
        { input: { code: 'k-1', name: 'Changed' } },
        { input: { code: 'x-1', name: 'x-1' } },
        { input: { code: 'x-2', name: 'boom' } },
      ]),
    ).rejects.toThrow("widget 'x-2' broke the rule");
    expect((await fx.rows(['k-1', ...codes])).map((r) => [r.code, r.version, r.name])).toEqual([['k-1', 1, 'k-1']]);
    // And when the rule breaks after the batch's statements ran: they are rolled back with it.
    fx.steer.crashAfterName = 'late boom';
    await expect(
      fx.service.writeMany('upsert', [
        { input: { code: 'x-1', name: 'x-1' } },
        { input: { code: 'k-1', name: 'late boom' } },
        { input: { code: 'x-2', name: 'x-2' } },
      ]),
    ).rejects.toThrow("widget 'k-1' broke after its write");
    expect((await fx.rows(['k-1', ...codes])).map((r) => [r.code, r.version, r.name])).toEqual([['k-1', 1, 'k-1']]);
    // A batch naming a code twice runs in two rounds, both in its one transaction: a crash in the
    // second keeps nothing of the first.
    await expect(
      fx.service.writeMany('upsert', [
        { input: { code: 'x-1', name: 'x-1' } },
        { input: { code: 'x-1', name: 'boom' } },
      ]),
    ).rejects.toThrow("widget 'x-1' broke the rule");
    expect(await fx.rows(codes)).toEqual([]);
    expect(await fx.events()).toEqual(before);
    expect(before.map((e) => e.data._id)).toEqual([kept._id]);
  });

  it('never deadlocks with concurrent batches and single writes: one version and one event per write', async () => {
    const writes = new Map<string, number>();
    const count = (id: string) => writes.set(id, (writes.get(id) ?? 0) + 1);
    for (let i = 0; i < 20; i++) {
      const [x, y] = await Promise.all(['x', 'y'].map((s) => create(`k${i}-${s}`)));
      count(x._id);
      count(y._id);
      const codes = [`k${i}-a`, `k${i}-b`, `k${i}-c`, x.code, y.code];
      const fresh = [`n${i}-p`, `n${i}-q`, `n${i}-r`];
      const upsertAll = (list: string[], name: string) =>
        fx.service.writeMany(
          'upsert',
          list.map((code) => ({ input: { code, name } })),
        );
      const [first, second, third, fourth, byId, ...singles] = await Promise.all([
        upsertAll(codes, `first ${i}`),
        upsertAll([...codes].reverse(), `second ${i}`),
        // Only new codes, in opposite orders: their inserts meet in the unique index.
        upsertAll(fresh, `third ${i}`),
        upsertAll([...fresh].reverse(), `fourth ${i}`),
        fx.service.writeMany('update', [
          { id: y._id, input: { price: i }, patch: true },
          { id: x._id, input: { price: i }, patch: true },
        ]),
        fx.service.patch(x._id, { name: `patched ${i}` }),
        fx.service.upsert({ code: y.code, name: `single ${i}` }).then((u) => u.view),
        fx.service.upsert({ code: `k${i}-b`, name: `single ${i}` }).then((u) => u.view),
        fx.service.upsert({ code: `n${i}-q`, name: `single ${i}` }).then((u) => u.view),
      ]);
      for (const o of [...first, ...second, ...third, ...fourth, ...byId]) {
        expect([o.status, o.error?.message]).toEqual([expect.stringMatching(/^(created|updated)$/), undefined]);
        count(o.view!._id);
      }
      for (const view of singles) count(view._id);
    }
    const rows: { _id: string; version: number; deleted: boolean }[] = await fx.ds.query(
      `SELECT "_id", version, deleted FROM widgets`,
    );
    expect(rows).toHaveLength(20 * 8);
    expect(rows.every((r) => !r.deleted)).toBe(true);
    expect(Object.fromEntries(rows.map((r) => [r._id, r.version]))).toEqual(Object.fromEntries(writes));
    const events = await fx.events();
    const perRecord = new Map<string, number>();
    for (const e of events) perRecord.set(e.data._id, (perRecord.get(e.data._id) ?? 0) + 1);
    expect(Object.fromEntries(perRecord)).toEqual(Object.fromEntries(writes));
    // Each record's events carry its versions 1, 2, 3… in the relay's order.
    const versions = new Map<string, number[]>();
    for (const e of events) versions.set(e.data._id, [...(versions.get(e.data._id) ?? []), e.data.version]);
    for (const [id, seen] of versions) expect(seen).toEqual(Array.from({ length: writes.get(id)! }, (_, k) => k + 1));
  });

  it('deletes many: soft-deleted by the caller with deleted events, the code free again', async () => {
    const [d1, d2, d3] = await Promise.all(['d-1', 'd-2', 'd-3'].map((c) => create(c)));
    const before = (await fx.events()).length;
    const out = await as('Bob', () =>
      fx.service.writeMany('delete', [
        { id: d2._id, expectedVersion: 1 },
        { id: d1._id },
        { id: d3._id, expectedVersion: 3 },
        { id: newId() },
        { id: d1._id },
      ]),
    );
    expect(summary(out)).toEqual(['deleted', 'deleted', 'failed 412', 'failed 404', 'failed 404']);
    expect(out[0].view).toMatchObject({ _id: d2._id, version: 2 });
    expect(fx.steer.afterDeletes).toEqual(['d-2', 'd-1']);

    const rows = await fx.rows(['d-1', 'd-2', 'd-3']);
    expect(rows.map((r) => [r.code, r.version, r.deleted, r.deleted_by])).toEqual([
      ['d-1', 2, true, 'Bob'],
      ['d-2', 2, true, 'Bob'],
      ['d-3', 1, false, null],
    ]);
    expect(rows[0].deleted_at).toBeInstanceOf(Date);

    const events = (await fx.events()).slice(before);
    expect(events.map((e) => [e.type, e.data._id, e.data.version, e.data.deleted_by])).toEqual([
      ['brands.deleted', d2._id, 2, 'Bob'],
      ['brands.deleted', d1._id, 2, 'Bob'],
    ]);
    expect(events[0].data.deleted_at).toBe(rows[1].deleted_at!.toISOString());
    expect(events[0].actor).toEqual({ user_id: BOB, user_name: 'Bob' });

    // The deleted records' codes are free: a create takes them, beside the deleted rows.
    const again = await fx.service.writeMany('create', [
      { input: { code: 'd-1', name: 'Back' } },
      { input: { code: 'd-3', name: 'Taken' } },
    ]);
    expect(summary(again)).toEqual(['created', 'failed 409']);
    expect((await fx.rows(['d-1'])).map((r) => [r._id, r.deleted])).toEqual([
      [d1._id, true],
      [again[0].view!._id, false],
    ]);
  });

  it('fills what the owner computes on each new record, by its item, before its rules run', async () => {
    const ids = [newId(), newId()];
    const out = await fx.service.writeMany(
      'upsert',
      [{ input: { code: 'f-1', name: 'One' } }, { input: { code: 'f-2', name: 'Two' } }],
      {
        fill: (record, i) => {
          record._id = ids[i];
          record.notes = [`filled ${i}`];
        },
      },
    );
    expect(out.map((o) => o.view?._id)).toEqual(ids);
    expect((await fx.rows(['f-1', 'f-2'])).map((r) => [r._id, r.notes])).toEqual([
      [ids[0], ['filled 0']],
      [ids[1], ['filled 1']],
    ]);
    expect((await fx.events()).map((e) => e.data._id)).toEqual(ids);
    // An existing record is not new: fill leaves it alone.
    const again = await fx.service.writeMany('upsert', [{ input: { code: 'f-1', name: 'Again' } }], {
      fill: (record) => void (record.notes = ['never']),
    });
    expect(summary(again)).toEqual(['updated']);
    expect((await fx.rows(['f-1']))[0].notes).toEqual(['filled 0']);
  });

  it('mutates many: each changed record one version and its events, unchanged and refused items alone', async () => {
    const [m1, m2, m3] = await Promise.all(['m-1', 'm-2', 'm-3'].map((c) => create(c)));
    const before = (await fx.events()).length;
    const out = await as('Ana', () =>
      fx.service.mutateMany(
        [{ id: m3._id }, { id: m1._id }, { id: m2._id }, { id: m1._id, expectedVersion: 7 }, { id: newId() }],
        (w) => {
          if (w.code === 'm-2') return false;
          w.name = `${w.name}!`;
          return { before: [{ action: 'renamed', data: { _id: w._id, name: w.name } }] };
        },
      ),
    );
    expect(summary(out)).toEqual(['updated', 'updated', 'unchanged', 'failed 412', 'failed 404']);
    expect(out[0].view).toMatchObject({ _id: m3._id, name: 'm-3!', version: 2 });
    expect((await fx.rows(['m-1', 'm-2', 'm-3'])).map((r) => [r.code, r.version, r.name])).toEqual([
      ['m-1', 2, 'm-1!'],
      ['m-2', 1, 'm-2'],
      ['m-3', 2, 'm-3!'],
    ]);
    const events = (await fx.events()).slice(before);
    expect(events.map((e) => [e.type, e.data._id])).toEqual([
      ['brands.renamed', m3._id],
      ['brands.updated', m3._id],
      ['brands.renamed', m1._id],
      ['brands.updated', m1._id],
    ]);
    expect(events[1].data).toMatchObject({ version: 2, name: 'm-3!' });
  });

  it('mutates many under the resource’s lockMany, once for the batch’s records in _id order, instead of its lock per record', async () => {
    const [l1, l2] = await Promise.all(['l-1', 'l-2'].map((c) => create(c)));
    const batches: LockRequest[][] = [];
    const { resource } = fx.service;
    const service = new RecordService(
      fx.ds,
      {
        ...resource,
        hooks: {
          ...resource.hooks,
          lock: () => Promise.reject(new Error('lock is not called when lockMany is there')),
          lockMany: async (_m, requests) => void batches.push(requests),
        },
      },
      { source: 'test' },
    );
    const out = await service.mutateMany([{ id: l2._id }, { id: l1._id }, { id: 'not-an-id' }], (w) => {
      w.name = `${w.name}!`;
    });
    expect(summary(out)).toEqual(['updated', 'updated', 'failed 400']);
    const ids = [l1._id, l2._id].sort();
    expect(batches).toEqual([ids.map((id) => ({ kind: 'update', id, given: {}, scope: {} }))]);
    // A batch with no valid id locks nothing.
    expect(summary(await service.mutateMany([{ id: 'not-an-id' }], () => false))).toEqual(['failed 400']);
    expect(batches).toHaveLength(1);
  });
});
