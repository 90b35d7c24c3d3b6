/** Human-readable rendering of validation issues and loss reports. */
import { styleText } from 'node:util';
import { type IssueOption, type Loss, optionMention, type ValidationIssue } from '@agentry/core';

type Style = Parameters<typeof styleText>[0];

export function colorEnabled(stream: NodeJS.WriteStream): boolean {
  return stream.isTTY === true && process.env['NO_COLOR'] === undefined && process.env['TERM'] !== 'dumb';
}

export function paint(enabled: boolean, style: Style, text: string): string {
  return enabled ? styleText(style, text) : text;
}

export function formatIssue(issue: ValidationIssue, color: boolean): string {
  const severity =
    issue.severity === 'error' ? paint(color, 'red', 'error  ') : paint(color, 'yellow', 'warning');
  const where = issue.pointer === '' ? '(document)' : issue.pointer;
  const spec = issue.spec ? paint(color, 'dim', ` [${issue.spec}]`) : '';
  return `  ${severity} ${paint(color, 'cyan', where)}  ${issueMessage(issue)}${spec}`;
}

/** The flag that sets each option an issue can name as its fix. */
const FLAG_OF: Record<IssueOption, string> = { baseUrl: '--base-url <url>' };

/** The issue's message, naming the CLI flag where the library names its option. */
export function issueMessage(issue: ValidationIssue): string {
  if (issue.option === undefined) return issue.message;
  return issue.message.replace(optionMention(issue.option), `(${FLAG_OF[issue.option]})`);
}

export function formatLoss(loss: Loss): string {
  return `  ${loss.agent}: ${loss.field}`;
}

export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}
