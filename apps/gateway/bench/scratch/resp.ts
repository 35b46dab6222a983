import { Command } from 'ioredis';
import { callArgs } from '../../src/limits/counter-script.js';
import { EncodedCommand, encodeScriptCall } from '../../src/limits/resp-command.js';
const org = '621f82b1-3476-4f29-90cc-b8a4fe65c4c4';
const rk = `lim:{${org}}:r:p:597fee8f-b152-4801-810b-d1fddab742a2:f-WR7Fenbqaz1KSKW3uCCR`;
const bk = `lim:{${org}}:u:p:aa2e4700-ae82-4f23-865b-89069c4f9210:f-WR7Fenbqaz1KSKW3uCCR:0`;
const admits = Array.from({ length: 6 }, (_, i) => ({ input: { rates: [{ key: rk, requests: true, limit: 1e12, windowMs: 60000 }], budgets: [{ key: bk, limit: 1e15, estimate: 648, expireAtMs: 0 }], reservationId: `KF-2us5OgOu7.${i}`, reservationTtlMs: 900000 } }));
const settles = Array.from({ length: 6 }, (_, i) => ({ input: { tokens: [], budgets: [{ key: bk, reserved: 648, actual: 90, limit: 1e15, threshold: -1, expireAtMs: 0 }], reservationId: `KF-2us5OgOu7.${i}` } }));
const { keys, args } = callArgs(settles as never, admits as never);
console.log('keys', keys.length, 'args', args.length);
const sha = 'a6c5502aff2c497ca1e6165332e7893f38b0780a';
function viaIoredis() { const c = new Command('evalsha', [sha, keys.length, ...keys, ...args], {}); c.promise.catch(() => {}); return Buffer.byteLength(c.toWritable({} as never) as string); }
function viaOurs() { const c = new EncodedCommand('evalsha', encodeScriptCall('evalsha', sha, keys, args)); c.promise.catch(() => {}); return (c.toWritable() as Buffer).length; }
for (const [name, f] of [['ioredis', viaIoredis], ['ours', viaOurs], ['ioredis', viaIoredis], ['ours', viaOurs]] as const) {
  const n = 200_000; let x = 0; const t = process.hrtime.bigint(); for (let i = 0; i < n; i++) x += f(); console.log(name, (Number(process.hrtime.bigint() - t) / n / 1000).toFixed(2), 'µs per call', x / n);
}
function encodeOnly() { return encodeScriptCall('evalsha', sha, keys, args).length; }
function commandOnly() { const c = new EncodedCommand('evalsha', Buffer.alloc(1)); c.promise.catch(() => {}); return 1; }
function ioredisString() { const c = new Command('evalsha', [sha, keys.length, ...keys, ...args], {}); c.promise.catch(() => {}); return (c.toWritable({} as never) as string).length; }
for (const [name, f] of [['encodeOnly', encodeOnly], ['commandOnly', commandOnly], ['ioredisNoUtf8', ioredisString], ['encodeOnly', encodeOnly], ['commandOnly', commandOnly], ['ioredisNoUtf8', ioredisString]] as const) {
  const n = 200_000; let x = 0; const t = process.hrtime.bigint(); for (let i = 0; i < n; i++) x += f(); console.log(name, (Number(process.hrtime.bigint() - t) / n / 1000).toFixed(2), 'µs per call', x / n);
}
