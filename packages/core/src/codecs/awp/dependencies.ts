/**
 * The action prerequisite graph (§11): every name in it must be an action of the file, and it must be acyclic,
 * since agents run prerequisites first and a cycle leaves nothing to start with.
 */
import type { IssueCollector } from '../../issues.js';
import { joinPointer } from '../../json/pointer.js';
import type { ObjectReader } from '../../json/reader.js';
import { SECTION } from './rules.js';

/** Reads `dependencies` into action → prerequisites, keeping only names of declared actions. */
export function readDependencies(
  dependencies: ObjectReader | undefined,
  actions: ReadonlySet<string>,
  issues: IssueCollector,
): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  if (dependencies === undefined) return graph;
  for (const action of Object.keys(dependencies.value)) {
    const pointer = dependencies.at(action);
    const known = actions.has(action);
    if (!known) {
      issues.error(
        pointer,
        'awp.dependency.unknown-action',
        `"${action}" has prerequisites but is not an action of this file; declare it under "actions" or remove the entry.`,
        SECTION.dependencies,
      );
    }
    const prerequisites: string[] = [];
    dependencies.stringArray(action)?.forEach((name, index) => {
      if (actions.has(name)) prerequisites.push(name);
      else
        issues.error(
          joinPointer(pointer, index),
          'awp.dependency.unknown-action',
          `Prerequisite "${name}" of "${action}" is not an action of this file.`,
          SECTION.dependencies,
        );
    });
    if (known) graph.set(action, prerequisites);
  }
  for (const cycle of findCycles(graph)) {
    issues.error(
      dependencies.at(cycle[0]!),
      'awp.dependency.cycle',
      `Dependencies form a cycle (${describeCycle(cycle)}): no order runs every prerequisite first.`,
      SECTION.dependencies,
    );
  }
  return graph;
}

/** `a → b → a`. */
export function describeCycle(cycle: readonly string[]): string {
  return [...cycle, cycle[0]].join(' → ');
}

/**
 * One cycle for every group of nodes that depend on each other, each as the path that closes it. Iterative, so a
 * long chain in a hostile document cannot overflow the stack.
 */
export function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const ON_PATH = 1;
  const DONE = 2;
  const state = new Map<string, number>();
  const cycles: string[][] = [];
  const reported = new Set<string>();
  for (const start of graph.keys()) {
    if (state.has(start)) continue;
    const path: string[] = [];
    const pending: Array<Iterator<string>> = [];
    const enter = (node: string): void => {
      state.set(node, ON_PATH);
      path.push(node);
      pending.push((graph.get(node) ?? [])[Symbol.iterator]());
    };
    enter(start);
    while (path.length > 0) {
      const next = pending.at(-1)!.next();
      if (next.done) {
        state.set(path.pop()!, DONE);
        pending.pop();
        continue;
      }
      const node = next.value;
      const seen = state.get(node);
      if (seen === undefined) enter(node);
      else if (seen === ON_PATH) {
        const cycle = path.slice(path.indexOf(node));
        const key = [...cycle].sort().join('\u0000');
        if (!reported.has(key)) {
          reported.add(key);
          cycles.push(cycle);
        }
      }
    }
  }
  return cycles;
}
