// Fixture: beta depends back on alpha (a folder loop, no module cycle).
import { three } from '../alpha/three.js';

export const two = () => three;
