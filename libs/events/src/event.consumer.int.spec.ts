import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { newId } from '@pim/ids';
import { createLogger } from '@pim/logging';
import { createTestStream, type TestStream } from '@pim/testing';
import { EventConsumer, type EventConsumerOptions } from './event.consumer';
import { buildEnvelope, subjectFor, type EventEnvelope } from './event.envelope';
import { waitFor } from './testing/outbox.fixtures';

/** A log line as pino writes it. */
interface Line {
  level: string;
  msg: string;
  event_id?: string;
  tries?: number;
}
const ERROR = 'error';
const WARN = 'warn';

function event(collection = 'products', action = 'updated', app = 'catalog'): EventEnvelope {
  return buildEnvelope({ id: newId(), source: app, collection, action, data: {}, occurredAt: new Date() });
}

class Permanent extends Error {}

describe('EventConsumer (real NATS)', () => {
  let stream: TestStream;
  const consumers: EventConsumer[] = [];
  let lines: Line[];

  beforeEach(async () => {
    stream = await createTestStream('consumer');
    lines = [];
  });

  afterEach(async () => {
    await Promise.all(consumers.splice(0).map((c) => c.stop()));
    await stream.destroy();
  });

  const all = () => `${stream.subjectPrefix}pim.>`;
  const subjectOf = (e: EventEnvelope) =>
    subjectFor(stream.subjectPrefix, e.source, e.collection, e.type.split('.')[1]);
  const publish = async (...events: EventEnvelope[]) => {
    for (const e of events) await jetstream(stream.nc).publish(subjectOf(e), JSON.stringify(e), { msgID: e.id });
  };

  const start = (opts: Partial<EventConsumerOptions> & Pick<EventConsumerOptions, 'handle'>): EventConsumer => {
    const c = new EventConsumer({
      nc: stream.nc,
      stream: stream.name,
      durable: 'test-consumer',
      filterSubjects: [all()],
      logger: createLogger({
        service: 'events-test',
        level: 'debug',
        destination: { write: (line: string) => void lines.push(JSON.parse(line) as Line) },
      }),
      name: 'test',
      nakDelayMs: 50,
      ...opts,
    });
    c.start();
    consumers.push(c);
    return c;
  };

  /** Waits until the durable has nothing left to hand out and nothing waiting for an ack. */
  const settled = (durable = 'test-consumer') =>
    waitFor(async () => {
      const info = await (await jetstreamManager(stream.nc)).consumers.info(stream.name, durable);
      return info.num_pending === 0 && info.num_ack_pending === 0 && info;
    }, 'consumer settled');

  it('hands events to the handler in batches of at most batchSize and acknowledges them', async () => {
    const events = Array.from({ length: 50 }, () => event());
    await publish(...events);
    const batches: string[][] = [];
    start({
      batchSize: 20,
      // A handler that takes a while (a transaction...) lets the next messages gather into a batch.
      handle: async (b) => {
        batches.push(b.map((e) => e.id));
        await new Promise((r) => setTimeout(r, 20));
      },
    });

    await waitFor(async () => batches.flat().length >= 50, 'all handled');
    const info = await settled();
    expect(batches.flat().sort()).toEqual(events.map((e) => e.id).sort());
    expect(Math.max(...batches.map((b) => b.length))).toBeLessThanOrEqual(20);
    expect(Math.max(...batches.map((b) => b.length))).toBeGreaterThan(1);
    expect(info.num_redelivered).toBe(0);
    expect(info.config.filter_subject).toBe(all());
  });

  it('hands out again an event whose handler failed, until it succeeds', async () => {
    const e = event();
    let calls = 0;
    const handled: string[] = [];
    start({
      handle: async (b) => {
        calls += 1;
        if (calls === 1) throw new Error('database away');
        handled.push(...b.map((x) => x.id));
      },
    });
    await publish(e);

    await waitFor(async () => handled.length > 0, 'handled on a later delivery');
    await settled();
    expect(handled).toEqual([e.id]);
    expect(calls).toBe(2);
    expect(lines.filter((l) => l.level === WARN && l.event_id === e.id).map((l) => l.tries)).toEqual([1]);
  });

  it('drops an event with a permanent error and lets the next ones through', async () => {
    const bad = event();
    const good = [event(), event()];
    const attempts = new Map<string, number>();
    start({
      isPermanent: (err) => err instanceof Permanent,
      handle: async (b) => {
        for (const e of b) attempts.set(e.id, (attempts.get(e.id) ?? 0) + 1);
        if (b.some((e) => e.id === bad.id)) throw new Permanent('no retry can fix this');
      },
    });
    await publish(bad, ...good);
    await waitFor(async () => lines.some((l) => l.level === ERROR && l.event_id === bad.id), 'bad event dropped');
    await publish(event());
    await settled();

    // At most once in a failed batch, then once alone: never handed out again.
    expect(attempts.get(bad.id)).toBeLessThanOrEqual(2);
    expect([...attempts.keys()]).toHaveLength(4);
    const info = await settled();
    expect(info.num_redelivered).toBe(0);
  });

  it('drops, by default, an event Postgres refuses the data of (SQLSTATE class 22)', async () => {
    const bad = event();
    const handled: string[] = [];
    start({
      handle: async (b) => {
        if (b.some((e) => e.id === bad.id)) throw Object.assign(new Error('invalid input'), { code: '22P02' });
        handled.push(...b.map((e) => e.id));
      },
    });
    const good = event();
    await publish(bad, good);
    await waitFor(async () => handled.includes(good.id), 'good handled');
    await settled();
    expect(lines.filter((l) => l.level === ERROR).map((l) => l.event_id)).toEqual([bad.id]);
  });

  it('with maxDeliver 3, drops an event that always fails after its third delivery; the others flow', async () => {
    const poison = event();
    const good = Array.from({ length: 5 }, () => event());
    const handled: string[] = [];
    start({
      maxDeliver: 3,
      handle: async (b) => {
        if (b.some((e) => e.id === poison.id)) throw new Error('always fails');
        handled.push(...b.map((e) => e.id));
      },
    });
    await publish(good[0], poison, ...good.slice(1));

    await waitFor(async () => lines.some((l) => l.level === ERROR && l.event_id === poison.id), 'poison dropped');
    await settled();
    expect(handled.sort()).toEqual(good.map((e) => e.id).sort());
    const about = lines.filter((l) => l.event_id === poison.id);
    expect(about.filter((l) => l.level === WARN).map((l) => l.tries)).toEqual([1, 2]);
    expect(about.filter((l) => l.level === ERROR)).toEqual([
      expect.objectContaining({ tries: 3, max_deliver: 3, event_type: 'products.updated' }),
    ]);
    // Terminated: not handed out a fourth time.
    await new Promise((r) => setTimeout(r, 300));
    expect(lines.filter((l) => l.event_id === poison.id)).toHaveLength(3);
  });

  it('drops a message that is not an event envelope', async () => {
    const handled: string[] = [];
    start({ handle: async (b) => void handled.push(...b.map((e) => e.id)) });
    await jetstream(stream.nc).publish(`${stream.subjectPrefix}pim.test.products.updated`, 'not json');
    await jetstream(stream.nc).publish(
      `${stream.subjectPrefix}pim.test.products.updated`,
      JSON.stringify({ id: 'nope', type: 'x' }),
    );
    const good = event();
    await publish(good);
    await waitFor(async () => handled.length > 0, 'good handled');
    const info = await settled();
    expect(handled).toEqual([good.id]);
    expect(info.num_redelivered).toBe(0);
  });

  it('shares one durable between two consumers: each event handled once overall', async () => {
    const seen: string[][] = [[], []];
    start({ handle: async (b) => void seen[0].push(...b.map((e) => e.id)) });
    start({ handle: async (b) => void seen[1].push(...b.map((e) => e.id)) });
    const events = Array.from({ length: 300 }, () => event('orders', 'created', 'orders'));
    await Promise.all(
      events.map((e) => jetstream(stream.nc).publish(subjectOf(e), JSON.stringify(e), { msgID: e.id })),
    );

    await waitFor(async () => seen[0].length + seen[1].length >= 300, 'all handled');
    await settled();
    const both = [...seen[0], ...seen[1]];
    expect(both).toHaveLength(300);
    expect(new Set(both)).toEqual(new Set(events.map((e) => e.id)));
    const consumersOfStream = await (await jetstreamManager(stream.nc)).consumers.list(stream.name).next();
    expect(consumersOfStream.map((c) => c.name)).toEqual(['test-consumer']);
  });

  it('with two filter subjects, handles only the events on them', async () => {
    const wanted = [event('products', 'updated'), event('orders', 'created', 'orders')];
    const others = [event('products', 'deleted'), event('brands', 'updated'), event('orders', 'deleted', 'orders')];
    const handled: string[] = [];
    start({
      filterSubjects: wanted.map(subjectOf),
      handle: async (b) => void handled.push(...b.map((e) => e.id)),
    });
    await publish(others[0], wanted[0], others[1], others[2], wanted[1]);

    await waitFor(async () => handled.length >= 2, 'wanted handled');
    const info = await settled();
    await new Promise((r) => setTimeout(r, 200));
    expect(handled.sort()).toEqual(wanted.map((e) => e.id).sort());
    // Servers from 2.10 take both filters; older ones one filter covering them, checked here too.
    const filters = info.config.filter_subjects?.length ? info.config.filter_subjects : [info.config.filter_subject];
    expect([[...wanted.map(subjectOf)].sort(), [`${stream.subjectPrefix}pim.*.*.*`]]).toContainEqual(
      [...filters].sort(),
    );
  });

  it('stops after handling what it received, and a new consumer resumes where the durable left off', async () => {
    const first: string[] = [];
    const c = start({ handle: async (b) => void first.push(...b.map((e) => e.id)) });
    const e1 = event();
    await publish(e1);
    await waitFor(async () => first.length === 1, 'first handled');
    await c.stop();
    const later = [event(), event()];
    await publish(...later);
    const second: string[] = [];
    start({ handle: async (b) => void second.push(...b.map((e) => e.id)) });
    await waitFor(async () => second.length === 2, 'resumed');
    await settled();
    expect(second.sort()).toEqual(later.map((e) => e.id).sort());
  });
});
