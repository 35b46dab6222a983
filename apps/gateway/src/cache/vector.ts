// Vector helpers for the semantic index: unit scaling, dot products and a binary form for Redis.
import { endianness } from 'node:os';
import { canonicalJson, sha256Hex } from './canonical-json.js';
import type { SemanticBucket } from './types.js';

/** A unit-length copy (cosine similarity of unit vectors is their dot product); undefined for zero. */
export function unit(vector: Float32Array): Float32Array | undefined {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  if (!(sum > 0) || !Number.isFinite(sum)) return undefined;
  const norm = Math.sqrt(sum);
  const out = new Float32Array(vector.length);
  for (let i = 0; i < vector.length; i++) out[i] = vector[i]! / norm;
  return out;
}

/** Dot product; vectors of another length (another embeddings model) never match. */
export function dot(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return Number.NEGATIVE_INFINITY;
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

/** Typed arrays use the machine's byte order: copy whole buffers when it is little-endian. */
const LITTLE_ENDIAN = endianness() === 'LE';

/** Little-endian float32 bytes. */
export function vectorBytes(vector: Float32Array): Buffer {
  if (LITTLE_ENDIAN)
    return Buffer.from(vector.buffer.slice(vector.byteOffset, vector.byteOffset + vector.byteLength));
  const out = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) out.writeFloatLE(vector[i]!, i * 4);
  return out;
}

export function vectorFromBytes(bytes: Buffer): Float32Array {
  const length = Math.floor(bytes.length / 4);
  // A copy: the Buffer may sit at an offset of a shared pool that is not 4-byte aligned.
  if (LITTLE_ENDIAN) return new Float32Array(Uint8Array.prototype.slice.call(bytes, 0, length * 4).buffer);
  const out = new Float32Array(length);
  for (let i = 0; i < length; i++) out[i] = bytes.readFloatLE(i * 4);
  return out;
}

/** One short id per bucket (its fields can be long or hold any character). */
export function bucketId(bucket: SemanticBucket): string {
  return sha256Hex(canonicalJson([bucket.scope, bucket.namespace, bucket.model, bucket.paramsKey])).slice(
    0,
    32,
  );
}
