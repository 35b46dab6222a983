// Fixture: y imports x back.
import { x } from './x.js';

export const y = (): unknown => x;
