/**
 * An A2A agent built with the official SDK's server side, shared by the tests of the `a2a` binding over JSON-RPC
 * (invoke-a2a.test.ts) and HTTP+JSON (invoke-a2a-rest.test.ts): add answers a message, count streams, slow is a task
 * a test finishes or cancels, anything else fails with a problem.
 */
import { type Message, type Part, Role, TaskState } from '@a2a-js/sdk';
import {
  AgentEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import type { Agent } from '@agentry/core';

/** A gate a test opens: the slow skill waits on it. */
export class Gate {
  readonly opened: Promise<'done' | 'cancelled'>;
  open!: (how: 'done' | 'cancelled') => void;
  constructor() {
    this.opened = new Promise((resolve) => {
      this.open = resolve;
    });
  }
}

function dataPart(value: unknown): Part {
  return {
    content: { $case: 'data', value },
    metadata: undefined,
    filename: '',
    mediaType: 'application/json',
  };
}

function agentMessage(contextId: string, value: unknown, taskId = ''): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [dataPart(value)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The SDK agent: add (a message), count (a stream), slow (a task a test finishes or cancels), fail, whoami. */
export class CalculatorExecutor implements AgentExecutor {
  gate = new Gate();
  readonly seen: Array<{ skill: unknown; contextId: string }> = [];

  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const message = request.userMessage;
    const skill = message.metadata?.['skillId'];
    const content = message.parts[0]?.content;
    const input = (content?.$case === 'data' ? content.value : undefined) as
      | Record<string, number>
      | undefined;
    const { taskId, contextId } = request;
    this.seen.push({ skill, contextId });
    const status = (state: TaskState, value?: unknown) =>
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: {
          state,
          message: value === undefined ? undefined : agentMessage(contextId, value, taskId),
          timestamp: new Date().toISOString(),
        },
        metadata: undefined,
      });
    const task = (state: TaskState) =>
      AgentEvent.task({
        id: taskId,
        contextId,
        status: { state, message: undefined, timestamp: new Date().toISOString() },
        artifacts: [],
        history: [message],
        metadata: undefined,
      });
    const artifact = (value: unknown) =>
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId: 'result',
          name: 'result',
          description: '',
          parts: [dataPart(value)],
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      });
    switch (skill) {
      case 'add':
        bus.publish(
          AgentEvent.message(agentMessage(contextId, { sum: (input?.['a'] ?? 0) + (input?.['b'] ?? 0) })),
        );
        break;
      case 'count': {
        bus.publish(task(TaskState.TASK_STATE_WORKING));
        for (let step = 1; step <= (input?.['to'] ?? 0); step++)
          bus.publish(status(TaskState.TASK_STATE_WORKING, step));
        bus.publish(artifact({ total: input?.['to'] ?? 0 }));
        bus.publish(status(TaskState.TASK_STATE_COMPLETED));
        break;
      }
      case 'slow': {
        bus.publish(task(TaskState.TASK_STATE_WORKING));
        if ((await this.gate.opened) === 'cancelled') return;
        bus.publish(artifact({ done: true }));
        bus.publish(status(TaskState.TASK_STATE_COMPLETED));
        break;
      }
      default:
        bus.publish(task(TaskState.TASK_STATE_WORKING));
        bus.publish(
          status(TaskState.TASK_STATE_FAILED, { title: 'Conflict', status: 409, detail: 'No seats left.' }),
        );
    }
    bus.finished();
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    this.gate.open('cancelled');
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: '',
        status: {
          state: TaskState.TASK_STATE_CANCELED,
          message: undefined,
          timestamp: new Date().toISOString(),
        },
        metadata: undefined,
      }),
    );
    bus.finished();
  }
}

export function skill(id: string) {
  return {
    id,
    name: id,
    description: `The ${id} skill.`,
    tags: [],
    examples: [],
    inputModes: [],
    outputModes: [],
  };
}

/** The agent as read from its card, with `slow` declared deferred: invoke sends it without waiting and follows it. */
export function withSlowDeferred(agent: Agent): Agent {
  return {
    ...agent,
    operations: agent.operations.map((op) => (op.name === 'slow' ? { ...op, executionModel: 'async' } : op)),
  };
}
