// A raw gRPC call over node:http2, the way anyone who reaches a port can make one: one request
// message (empty unless given), optional metadata, and the status and message count that came back.
import { connect } from 'node:http2';

export interface RawGrpcAnswer {
  /** grpc-status (0 OK, 3 INVALID_ARGUMENT, 16 UNAUTHENTICATED, ...). */
  readonly status: number;
  /** Response messages received before the status. */
  readonly messages: number;
  readonly bytes: number;
}

export function rawGrpcCall(
  address: string,
  path: string,
  metadata: Record<string, string> = {},
  message: Uint8Array = new Uint8Array(0),
): Promise<RawGrpcAnswer> {
  const session = connect(`http://${address}`);
  return new Promise<RawGrpcAnswer>((resolve, reject) => {
    session.on('error', reject);
    const stream = session.request({
      ':method': 'POST',
      ':path': path,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...metadata,
    });
    let status: number | undefined;
    let received = Buffer.alloc(0);
    const readStatus = (headers: Record<string, unknown>) => {
      if (headers['grpc-status'] !== undefined) status = Number(headers['grpc-status']);
    };
    stream.on('response', readStatus);
    stream.on('trailers', readStatus);
    stream.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
    });
    stream.on('error', reject);
    stream.on('close', () => {
      if (status === undefined) return reject(new Error(`no grpc-status from ${path}`));
      // Length-prefixed messages: 1 byte compressed flag, 4 bytes big-endian length, the message.
      let messages = 0;
      for (let at = 0; at + 5 <= received.length; at += 5 + received.readUInt32BE(at + 1)) messages++;
      resolve({ status, messages, bytes: received.length });
    });
    const frame = Buffer.alloc(5 + message.length);
    frame.writeUInt32BE(message.length, 1);
    frame.set(message, 5);
    stream.end(frame);
  }).finally(() => session.close());
}
