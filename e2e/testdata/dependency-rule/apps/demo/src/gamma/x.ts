// Fixture: x and y import each other (a module cycle).
import { y } from './y.js';

export const x = () => y();
