import { breakingChanges, type ApiDocument } from './breaking';

const id = { type: 'string', pattern: '^[0-9a-f]{24}$' };
/** A document of one list with a record of `fields`, its filters as parameters of their own. */
function before(): ApiDocument {
  return {
    paths: {
      '/things': {
        get: {
          parameters: [
            { name: 'page', in: 'query' },
            { name: 'code', in: 'query', schema: { type: 'string' } },
            { name: 'code_in', in: 'query', schema: { type: 'string' } },
            { name: 'created_at_gte', in: 'query', schema: { type: 'string' } },
          ],
          responses: {
            '200': {
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    properties: { data: { type: 'array', items: { $ref: '#/components/schemas/Thing' } } },
                  },
                },
              },
            },
          },
        },
        post: {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ThingInput' } } },
          },
          responses: { '201': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } } },
        },
      },
    },
    components: {
      schemas: {
        Thing: {
          type: 'object',
          properties: { _id: id, code: { type: 'string' }, note: { type: 'string' } },
          required: ['_id', 'code'],
        },
        ThingInput: {
          type: 'object',
          properties: { code: { type: 'string' }, note: { type: 'string' } },
          required: ['code'],
        },
      },
    },
  };
}

/** The same document with its filters in one exploded `filter` object, shared parameters by reference. */
function reshaped(): ApiDocument {
  const doc = before();
  doc.components!.parameters = { page: { name: 'page', in: 'query' } };
  doc.components!.schemas!.ThingFilter = {
    type: 'object',
    properties: { code: { type: 'string' } },
    patternProperties: {
      '^(code)_(in|nin)$': { type: 'string' },
      '^(created_at)_(gt|gte|lt|lte)$': { type: 'string' },
    },
  };
  doc.paths!['/things'].get.parameters = [
    { $ref: '#/components/parameters/page' } as never,
    { name: 'filter', in: 'query', style: 'form', explode: true, schema: { $ref: '#/components/schemas/ThingFilter' } },
  ];
  return doc;
}

describe('breaking changes of the OpenAPI document', () => {
  it('finds none when only the way parameters are written changes', () => {
    expect(breakingChanges(before(), reshaped())).toEqual([]);
    expect(breakingChanges(before(), before())).toEqual([]);
  });

  it('names a gone operation, parameter or filter key', () => {
    const doc = reshaped();
    delete doc.paths!['/things'].post;
    doc.components!.schemas!.ThingFilter.patternProperties = { '^(code)_(in)$': { type: 'string' } };
    doc.paths!['/things'].get.parameters!.shift();
    expect(breakingChanges(before(), doc)).toEqual([
      'GET /things: parameter query:page is gone',
      'GET /things: parameter query:created_at_gte is gone',
      'POST /things: the operation is gone',
    ]);
  });

  it('names a field of an answer gone or no longer always there, and a body field gone or newly required', () => {
    const doc = before();
    doc.components!.schemas!.Thing = {
      type: 'object',
      properties: { _id: id, code: { type: 'string' } },
      required: ['_id'],
    };
    doc.components!.schemas!.ThingInput = {
      type: 'object',
      properties: { code: { type: 'string' } },
      required: ['code', 'x'],
    };
    expect(breakingChanges(before(), doc).sort()).toEqual(
      [
        'GET /things 200.data[].code is no longer always there',
        'GET /things 200.data[].note is gone',
        'POST /things body.note is gone',
        'POST /things 201.code is no longer always there',
        'POST /things 201.note is gone',
      ].sort(),
    );
  });
});
