import { randomBytes } from 'node:crypto';
import { createLogger } from '@pim/logging';
import { Keyring, ResealCounter, ResealLoop, sealedKeyId, type SealedStore } from './index';

const keys = { k1: randomBytes(32), k2: randomBytes(32), gone: randomBytes(32) };
const ring = (...ids: (keyof typeof keys)[]) => new Keyring(ids.map((id) => ({ id, key: keys[id] })));

/** Rows of two values each (the second may be null), re-sealed as an app's store does: compare-and-set per row. */
function memoryStore(rows: Map<string, (string | null)[]>, beforeWrite?: (id: string) => void): SealedStore {
  return {
    name: 'memory',
    async reseal(keyring) {
      const counter = new ResealCounter(keyring);
      for (const [id, stored] of [...rows].map(([i, v]) => [i, [...v]] as const)) {
        const { values, changed } = counter.reseal(id, stored);
        let written = true;
        if (changed) {
          beforeWrite?.(id);
          written = JSON.stringify(rows.get(id)) === JSON.stringify(stored);
          if (written) rows.set(id, values);
        }
        counter.done(stored, values, written);
      }
      return counter.tally;
    },
  };
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
});
