/** What the two indexes are given of an agent: the lexical fields and the text the embedding model reads. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { embeddingText, lexicalFields } from '../../src/search/document-text.js';
import { doc } from './helpers.js';

describe('document text', () => {
  it('gives each index every field, identifiers made readable for the model', () => {
    const weather = doc('weather', {
      name: 'get_weather',
      description: 'Forecasts for any city',
      tags: ['meteorology'],
      operations: [
        { name: 'getForecast', description: 'Daily forecast', examples: ['rain?'], parameters: ['city'] },
      ],
    });
    assert.equal(
      embeddingText(weather),
      'get weather: Forecasts for any city. get Forecast. city. meteorology.',
    );
    const fields = lexicalFields(weather);
    assert.equal(fields.operationNames, 'getForecast get Forecast');
    assert.equal(fields.operationText, 'Daily forecast ; rain?');
    assert.equal(fields.parameters, 'city');
  });

  it("indexes once what an agent that is one tool repeats in its operation: the agent's name and description", () => {
    const tool = doc('stock', {
      name: 'get_current_stock_price',
      description: 'Get the current stock price.',
      operations: [
        {
          name: 'get_current_stock_price',
          description: 'Get the current stock price.',
          examples: [],
          parameters: ['symbol'],
        },
      ],
    });
    assert.equal(embeddingText(tool), 'get current stock price: Get the current stock price. symbol.');
    const fields = lexicalFields(tool);
    assert.equal(fields.operationNames, '');
    assert.equal(fields.operationText, '');
    assert.equal(fields.parameters, 'symbol');
    // An operation of the same name that says something else keeps what it says.
    const other = lexicalFields({
      ...tool,
      operations: [{ ...tool.operations[0]!, name: 'GetCurrentStockPrice', description: 'Quotes, delayed.' }],
    });
    assert.equal(other.operationNames, '');
    assert.equal(other.operationText, 'Quotes, delayed.');
  });
});
