// Fixture: a package importing an app's code.
import { three } from '../../../apps/demo/src/alpha/three.js';

export const usesApp = three;
