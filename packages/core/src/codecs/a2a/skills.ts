/** A2A skills ↔ canonical operations. A skill has no input/output schema: it is described in words and media types. */
import type { IssueCollector } from '../../issues.js';
import { ObjectReader } from '../../json/reader.js';
import { setOwn } from '../../json/values.js';
import type { JsonObject, Operation } from '../../model/agent.js';
import type { CardSections } from './sections.js';
import { readSecurityRequirements, writeV1Requirements, writeV03Requirements } from './security.js';

export const SKILL_FIELDS: ReadonlySet<string> = new Set([
  'id',
  'name',
  'description',
  'tags',
  'examples',
  'inputModes',
  'outputModes',
  'security',
  'securityRequirements',
]);

export function readSkill(
  value: unknown,
  pointer: string,
  issues: IssueCollector,
  sections: CardSections,
): Operation | undefined {
  const skill = ObjectReader.of(value, pointer, issues, 'a2a', 'An AgentSkill', sections.skill);
  if (skill === undefined) return undefined;
  const required = { required: true, section: sections.skill };
  const id = skill.text('id', required);
  const name = skill.string('name', required);
  const description = skill.string('description', required);
  const tags = skill.stringArray('tags', required);
  const examples = skill.stringArray('examples');
  const inputModes = skill.stringArray('inputModes');
  const outputModes = skill.stringArray('outputModes');
  const security = readSecurityRequirements(skill, issues, sections.skill);
  if (id === undefined) return undefined;

  const operation: Operation = { name: id };
  // `name` and `tags` are required in a skill, so the emitter fills them from the id and with []; read back, those
  // fillers are the canonical "absent".
  if (name !== undefined && name !== id) operation.title = name;
  if (description !== undefined && description !== '') operation.description = description;
  if (tags !== undefined && tags.length > 0) operation.tags = tags;
  if (examples !== undefined) operation.examples = examples.map((text) => ({ text }));
  if (inputModes !== undefined) operation.inputModes = inputModes;
  if (outputModes !== undefined) operation.outputModes = outputModes;
  if (security !== undefined) operation.security = security;
  const rest = skill.rest(SKILL_FIELDS);
  if (rest !== undefined) operation.extensions = { a2a: rest };
  return operation;
}

export interface WrittenSkill {
  skill: JsonObject;
  /** Operation fields (`title`, `examples`, ...) that will not read back unchanged, with the reason. */
  losses: Array<{ field: string; message: string }>;
}

export function writeSkill(operation: Operation): WrittenSkill {
  const losses: WrittenSkill['losses'] = [];
  const skill: JsonObject = {
    id: operation.name,
    name: operation.title ?? operation.name,
    description: operation.description ?? '',
    tags: operation.tags ?? [],
  };
  if (operation.title === operation.name) {
    losses.push({ field: 'title', message: 'A skill name equal to its id reads back as no separate title.' });
  }
  if (operation.description === '') {
    losses.push({ field: 'description', message: 'An empty skill description reads back as none.' });
  }
  if (operation.tags?.length === 0) {
    losses.push({ field: 'tags', message: 'Empty skill tags read back as none.' });
  }
  if (operation.examples !== undefined) {
    const texts: string[] = [];
    let onlyText = true;
    for (const example of operation.examples) {
      const keys = Object.keys(example).filter((key) => example[key as keyof typeof example] !== undefined);
      if (keys.length !== 1 || example.text === undefined) onlyText = false;
      // A structured example becomes its input as JSON text, as A2A's own samples write them.
      const text = example.text ?? (example.input === undefined ? undefined : JSON.stringify(example.input));
      if (text !== undefined) texts.push(text);
    }
    if (!onlyText) {
      losses.push({
        field: 'examples',
        message:
          'A2A skill examples are text; structured inputs and outputs are written as JSON text or dropped.',
      });
    }
    if (texts.length > 0 || operation.examples.length === 0) skill['examples'] = texts;
  }
  if (operation.inputModes !== undefined) skill['inputModes'] = [...operation.inputModes];
  if (operation.outputModes !== undefined) skill['outputModes'] = [...operation.outputModes];
  if (operation.security !== undefined) {
    skill['security'] = writeV03Requirements(operation.security);
    skill['securityRequirements'] = writeV1Requirements(operation.security);
  }
  const extension = operation.extensions?.['a2a'];
  if (extension !== undefined) {
    let clashed = false;
    for (const [key, value] of Object.entries(extension)) {
      if (SKILL_FIELDS.has(key)) clashed = true;
      else setOwn(skill, key, value);
    }
    if (clashed) {
      losses.push({
        field: 'extensions.a2a',
        message: 'Extension fields named like AgentSkill fields cannot be written beside them.',
      });
    }
  }
  return { skill, losses };
}
