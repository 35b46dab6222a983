// Experiment for the enforcement bench only: `--require` this into a gateway to turn on ioredis
// auto-pipelining for every Redis client of that process, without changing the gateway's source.
const { createRequire } = require('node:module');
const { join } = require('node:path');

const ioredis = createRequire(join(__dirname, '..', 'package.json'))('ioredis');
const Redis = ioredis.default ?? ioredis;
const connect = Redis.prototype.connect;
// The constructor calls connect() before any command is queued, so the option is seen from the first one.
Redis.prototype.connect = function connectAutoPipelined(...args) {
  this.options.enableAutoPipelining = true;
  return connect.apply(this, args);
};
