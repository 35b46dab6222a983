// Fixture: alpha depends on beta.
import { two } from '../beta/two.js';

export const one = () => two();
