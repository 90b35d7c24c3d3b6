/** The resolver string targets go through. */
import { resolve } from '../resolve/index.js';
import type { Resolver } from './target.js';

export const resolveTarget: Resolver = resolve;
