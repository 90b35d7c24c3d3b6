/**
 * The AIDIP draft's example agent (§3.3, "Chinese-English Translator"): an API-key protected translation
 * operation. Run it: `agentry host examples/translator/agent.ts --port 8081`, then call it with
 * `X-API-Key: demo-translator-key` (or set TRANSLATOR_API_KEY before starting).
 *
 * The translation is a small phrase book, so the example needs no model; unknown text is echoed back marked.
 */
import { defineAgent } from '@agentry/host';
import { z } from 'zod';

const Language = z.enum(['en', 'zh']);

const PHRASES: ReadonlyArray<readonly [en: string, zh: string]> = [
  ['Hello World', '你好世界'],
  ['Hello', '你好'],
  ['Thank you', '谢谢'],
  ['Good morning', '早上好'],
  ['How are you?', '你好吗？'],
  ['Goodbye', '再见'],
];

export const translator = defineAgent({
  id: 'translator',
  name: 'Chinese-English Translator',
  description: 'Translates text between Chinese and English with high accuracy using a fine-tuned model.',
  version: '1.2.0',
  publisher: { name: 'ExampleAI Inc.' },
  capabilities: ['translation'],
  tags: ['nlp', 'chinese', 'english', 'cloud'],
  languages: ['en', 'zh'],
  operations: {
    translateText: {
      description: 'Translates text from source language to target language.',
      // A Standard Schema validator: the host publishes it as JSON Schema and hands the handler parsed input.
      input: z.object({
        text: z.string().min(1),
        source_language: Language,
        target_language: Language,
      }),
      output: z.object({ translated_text: z.string() }),
      authRequired: true,
      safe: true,
      idempotent: true,
      rateLimit: '60/minute',
      examples: [
        {
          input: { text: '你好世界', source_language: 'zh', target_language: 'en' },
          output: { translated_text: 'Hello World' },
        },
      ],
      handler: (input) => ({
        translated_text: translate(input.text, input.source_language, input.target_language),
      }),
    },
  },
});

export default translator;

/** API keys the host accepts (one demo key unless TRANSLATOR_API_KEY is set). */
export const hostOptions = {
  auth: {
    apiKeys: { [process.env.TRANSLATOR_API_KEY ?? 'demo-translator-key']: { clientId: 'demo' } },
  },
};

export function translate(text: string, from: 'en' | 'zh', to: 'en' | 'zh'): string {
  if (from === to) return text;
  const source = from === 'en' ? 0 : 1;
  const target = to === 'en' ? 0 : 1;
  const hit = PHRASES.find((phrase) => phrase[source].toLowerCase() === text.trim().toLowerCase());
  return hit ? hit[target] : `[${to}] ${text}`;
}
