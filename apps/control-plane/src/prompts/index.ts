// The prompt families' routes (prompts, partials, collections, labels) and snapshot readers.
import type { RouteDefinition } from '../http/route.js';
import { collectionRoutes } from './collections.routes.js';
import { labelRoutes } from './labels.routes.js';
import { promptPartialRoutes } from './prompt-partials.routes.js';
import { promptRoutes } from './prompts.routes.js';

export const promptFamilyRoutes: readonly RouteDefinition[] = [
  ...promptRoutes,
  ...promptPartialRoutes,
  ...collectionRoutes,
  ...labelRoutes,
];
export { readPromptEntities, readPromptPartialEntities } from './prompts.entity.js';
