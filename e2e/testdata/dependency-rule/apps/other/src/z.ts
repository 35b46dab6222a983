// Fixture: one app importing another app's code.
import { three } from '../../demo/src/alpha/three.js';

export const z = three;
