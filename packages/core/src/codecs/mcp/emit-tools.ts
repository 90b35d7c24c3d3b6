/**
 * Canonical operations → MCP tools. MCP needs object-typed argument schemas and names from a narrow alphabet, so
 * operations that do not fit are reshaped, and each reshaping is reported as a loss.
 */
import { isObject, setOwn } from '../../json/values.js';
import type { JsonObject, Operation } from '../../model/agent.js';
import {
  isObjectTypedSchema,
  MAPPED_HINTS,
  TOOL_FIELDS,
  TOOL_NAME,
  TOOL_NAME_FORBIDDEN,
  TOOL_NAME_MAX_LENGTH,
} from './rules.js';

/** Records a loss at a canonical path (`operations[x].input`, ...). */
export type LoseField = (field: string, message: string) => void;

export function emitTools(operations: readonly Operation[], lose: LoseField): JsonObject[] {
  const used = new Set<string>();
  return operations.map((operation) => {
    const name = toolName(operation.name, used);
    used.add(name);
    if (name === operation.name) return emitTool(operation, name, lose);
    lose(
      `operations[${operation.name}]`,
      `"${operation.name}" is not a usable MCP tool name; it is written as "${name}".`,
    );
    // The operation as a whole is reported lost (it reads back under another name), not field by field.
    return emitTool(operation, name, () => {});
  });
}

/** The operation's name when it is a valid, unused tool name; otherwise a sanitised, unique one. */
function toolName(name: string, used: ReadonlySet<string>): string {
  if (TOOL_NAME.test(name) && !used.has(name)) return name;
  const base = name.replace(TOOL_NAME_FORBIDDEN, '_').slice(0, TOOL_NAME_MAX_LENGTH) || 'tool';
  let candidate = base;
  for (let n = 2; used.has(candidate); n++) {
    const suffix = `_${n}`;
    candidate = base.slice(0, TOOL_NAME_MAX_LENGTH - suffix.length) + suffix;
  }
  return candidate;
}

function emitTool(operation: Operation, name: string, lose: LoseField): JsonObject {
  const at = `operations[${operation.name}]`;
  const tool: JsonObject = { name };
  if (operation.title !== undefined) tool['title'] = operation.title;
  if (operation.description !== undefined) tool['description'] = operation.description;

  if (isObjectTypedSchema(operation.input)) {
    tool['inputSchema'] = operation.input;
  } else {
    tool['inputSchema'] = { type: 'object' };
    if (operation.input !== undefined)
      lose(`${at}.input`, 'MCP tool arguments are an object; a non-object input schema is not carried.');
  }
  if (operation.output !== undefined) {
    if (isObjectTypedSchema(operation.output)) tool['outputSchema'] = operation.output;
    else
      lose(
        `${at}.output`,
        'MCP structured tool results are objects; a non-object output schema is not carried.',
      );
  }

  const extension = operation.extensions?.['mcp'];
  const annotations = emitAnnotations(operation, extension?.['annotations'], at, lose);
  if (annotations !== undefined) tool['annotations'] = annotations;
  if (extension !== undefined) {
    for (const [key, value] of Object.entries(extension)) {
      if (key === 'annotations') continue;
      if (TOOL_FIELDS.has(key)) {
        lose(`${at}.extensions.mcp`, `extensions.mcp.${key} would overwrite the tool's own "${key}".`);
        continue;
      }
      setOwn(tool, key, value);
    }
  }
  return tool;
}

/**
 * The hints the canonical fields state, over the annotation fields kept in `extensions.mcp.annotations`. A hint is
 * written only when its canonical field is known: an absent hint means the protocol default, which is a guess.
 */
function emitAnnotations(
  operation: Operation,
  kept: unknown,
  at: string,
  lose: LoseField,
): JsonObject | undefined {
  let annotations: JsonObject | undefined;
  if (kept !== undefined) {
    annotations = {};
    if (!isObject(kept)) {
      lose(`${at}.extensions.mcp`, 'extensions.mcp.annotations is not an object, so it is not written.');
    } else {
      for (const [key, value] of Object.entries(kept)) {
        // These hints are written from the canonical fields; a copy here would contradict them on reading back.
        if (MAPPED_HINTS.has(key)) {
          lose(
            `${at}.extensions.mcp`,
            `extensions.mcp.annotations.${key} is written from the canonical fields.`,
          );
          continue;
        }
        setOwn(annotations, key, value);
      }
    }
  }
  if (operation.safe !== undefined) {
    annotations ??= {};
    annotations['readOnlyHint'] = operation.safe;
  }
  if (operation.sensitivity !== undefined) {
    annotations ??= {};
    annotations['destructiveHint'] = operation.sensitivity !== 'standard';
    if (operation.sensitivity === 'irreversible') {
      lose(
        `${at}.sensitivity`,
        'MCP has one destructiveHint for destructive and irreversible effects; "irreversible" reads back as "destructive".',
      );
    }
  }
  if (operation.idempotent !== undefined) {
    annotations ??= {};
    annotations['idempotentHint'] = operation.idempotent;
  }
  return annotations;
}
