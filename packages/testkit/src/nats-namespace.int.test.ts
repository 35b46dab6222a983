import { AckPolicy } from '@nats-io/jetstream';
import { expect } from 'vitest';
import { test } from './fixtures.js';
import { createTestNats } from './nats-namespace.js';

test('JetStream: dedupe by Nats-Msg-Id, durable pull consumer, acks advance the floor', async ({ nats }) => {
  const stream = nats.stream('EVENTS');
  expect(stream).toBe(`${nats.prefix}_EVENTS`);
  await nats.jsm.streams.add({ name: stream, subjects: [nats.subject('events', '>')] });

  const subject = nats.subject('events', 'created');
  const first = await nats.js.publish(subject, 'one', { msgID: 'evt-1' });
  const again = await nats.js.publish(subject, 'one, again', { msgID: 'evt-1' });
  const second = await nats.js.publish(subject, 'two', { msgID: 'evt-2' });
  expect(first).toMatchObject({ stream, seq: 1, duplicate: false });
  expect(again).toMatchObject({ stream, seq: 1, duplicate: true });
  expect(second).toMatchObject({ stream, seq: 2, duplicate: false });
  expect((await nats.jsm.streams.info(stream)).state.messages).toBe(2);

  await nats.jsm.consumers.add(stream, { durable_name: 'worker', ack_policy: AckPolicy.Explicit });
  const consumer = await nats.js.consumers.get(stream, 'worker');
  const received: string[] = [];
  const batch = await consumer.fetch({ max_messages: 2, expires: 5_000 });
  for await (const msg of batch) {
    received.push(msg.string());
    expect(msg.headers?.get('Nats-Msg-Id')).toBe(received.length === 1 ? 'evt-1' : 'evt-2');
    await msg.ackAck();
  }
  expect(received).toEqual(['one', 'two']);

  const info = await nats.jsm.consumers.info(stream, 'worker');
  expect(info.num_pending).toBe(0);
  expect(info.num_ack_pending).toBe(0);
  expect(info.ack_floor.stream_seq).toBe(2);
  expect(info.delivered.stream_seq).toBe(2);
});

test('cleanup deletes the streams under its prefix and no others', async ({ nats }) => {
  const mine = nats.stream('KEEP');
  await nats.jsm.streams.add({ name: mine, subjects: [nats.subject('keep')] });
  const scratch = await createTestNats(nats.url);
  expect(scratch.prefix).not.toBe(nats.prefix);
  expect(scratch.prefix).toMatch(/^T_[0-9a-f]{10}$/);
  const doomed = [scratch.stream('A'), scratch.stream('B')];
  for (const [i, name] of doomed.entries()) {
    await scratch.jsm.streams.add({ name, subjects: [scratch.subject(`s${i}`)] });
  }
  await scratch.cleanup();
  expect(scratch.nc.isClosed()).toBe(true);

  const names: string[] = [];
  for await (const name of nats.jsm.streams.names()) names.push(name);
  expect(names).toContain(mine);
  for (const name of doomed) expect(names).not.toContain(name);
});
