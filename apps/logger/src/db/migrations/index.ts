// Every logger migration, in order. Forward-only: never edit one that has shipped.
import type { Migrations } from '@aigw/db';
import * as deadLetters from './0001-dead-letters.js';

export const migrations: Migrations = {
  '0001-dead-letters': deadLetters,
};
