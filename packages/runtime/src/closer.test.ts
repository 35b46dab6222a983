import { describe, expect, it } from 'vitest';
import { Closer } from './closer.js';
import { createLogger } from './logger.js';

describe('Closer', () => {
  it('closes in reverse order, once, and carries on past a failing step', async () => {
    const order: string[] = [];
    const closer = new Closer(createLogger({ app: 'test', level: 'silent' }));
    closer.add('db', () => {
      order.push('db');
    });
    closer.add('nats', () => {
      order.push('nats');
      throw new Error('already closed');
    });
    closer.add('http', async () => {
      order.push('http');
    });
    await Promise.all([closer.closeAll(), closer.closeAll()]);
    expect(order).toEqual(['http', 'nats', 'db']);
    expect(closer.closed).toBe(true);
  });
});
