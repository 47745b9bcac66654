import { randomBytes } from 'node:crypto';
import { createLogger } from '@pim/logging';
import { Keyring, pagedSealedStore, RESEAL_PAGE, ResealLoop, sealedKeyId, type SealedStore } from './index';

const keys = { k1: randomBytes(32), k2: randomBytes(32), gone: randomBytes(32) };
const ring = (...ids: (keyof typeof keys)[]) => new Keyring(ids.map((id) => ({ id, key: keys[id] })));

/** Rows of values (null: none), re-sealed as an app's store does: in pages by id, compare-and-set per row. */
function memoryStore(rows: Map<string, (string | null)[]>, beforeWrite?: (id: string) => void): SealedStore {
  return pagedSealedStore<{ _id: string; values: (string | null)[] }>({
    name: 'memory',
    page: async (after, limit) =>
      [...rows.keys()]
        .sort()
        .filter((id) => id > after)
        .slice(0, limit)
        .map((id) => ({ _id: id, values: [...rows.get(id)!] })),
    values: (row) => row.values,
    write: async (row, values) => {
      beforeWrite?.(row._id);
      if (JSON.stringify(rows.get(row._id)) !== JSON.stringify(row.values)) return false;
      rows.set(row._id, values);
      return true;
    },
  });
}

describe('re-sealing', () => {
  const logger = createLogger({ service: 'test', level: 'silent' });

  it('seals clear values and moves older keys’ values to the current key; a second pass has nothing to do', async () => {
    const rows = new Map<string, (string | null)[]>([
      ['a', ['clear-a', null]],
      ['b', [ring('k1').seal('b1'), 'clear-b2']],
      ['c', [ring('k2').seal('c1'), null]],
    ]);
    const current = ring('k2', 'k1');
    const loop = new ResealLoop({ keyring: current, stores: [memoryStore(rows)], logger });
    const first = await loop.runOnce();
    expect(first).toMatchObject({ currentKeyId: 'k2', resealed: 3, sealedWith: { k2: 4 }, unreadable: [] });
    expect(
      [...rows.values()]
        .flat()
        .filter((v) => v !== null)
        .map((v) => sealedKeyId(v!)),
    ).toEqual(['k2', 'k2', 'k2', 'k2']);
    expect(rows.get('b')!.map((v) => current.open(v!))).toEqual(['b1', 'clear-b2']);
    const second = await loop.runOnce();
    expect(second).toMatchObject({ resealed: 0, sealedWith: { k2: 4 } });
  });

  it('leaves a value it cannot open as it is and names it; counts a record changed meanwhile without claiming it', async () => {
    const lost = ring('gone').seal('x');
    const rows = new Map<string, (string | null)[]>([
      ['lost', [lost, null]],
      ['raced', ['clear', null]],
    ]);
    const store = memoryStore(rows, (id) => {
      if (id === 'raced') rows.set('raced', [ring('k1').seal('written meanwhile'), null]);
    });
    const report = await new ResealLoop({ keyring: ring('k2', 'k1'), stores: [store], logger }).runOnce();
    expect(rows.get('lost')![0]).toBe(lost);
    expect(report.unreadable).toEqual([{ id: 'memory lost', problem: expect.stringContaining("operator key 'gone'") }]);
    expect(report.changedMeanwhile).toBe(1);
    expect(report.sealedWith).toEqual({ gone: 1 });
  });

  it('runs a pass at start and stops cleanly', async () => {
    const rows = new Map<string, (string | null)[]>([['a', ['clear', null]]]);
    const loop = new ResealLoop({ keyring: ring('k1'), stores: [memoryStore(rows)], logger, intervalMs: 60_000 });
    loop.start();
    await loop.stop();
    expect(sealedKeyId(rows.get('a')![0]!)).toBe('k1');
  });

  it('passes over a store bigger than one page, every record once', async () => {
    const total = RESEAL_PAGE * 2 + 17;
    const rows = new Map<string, (string | null)[]>(
      Array.from({ length: total }, (_, i) => [`r${String(i).padStart(4, '0')}`, [`clear-${i}`]]),
    );
    const loop = new ResealLoop({ keyring: ring('k1'), stores: [memoryStore(rows)], logger });
    const report = await loop.runOnce();
    expect(report.resealed).toBe(total);
    expect(report.sealedWith).toEqual({ k1: total });
    expect([...rows.values()].every(([v]) => sealedKeyId(v!) === 'k1')).toBe(true);
  });
});
