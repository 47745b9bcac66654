import { attributeScope, familyScope, type AttributeRequirement } from './completeness.jobs';

const attribute = (over: Partial<AttributeRequirement> = {}): AttributeRequirement => ({
  _id: 'a1',
  type: 'text',
  type_config: {},
  required: false,
  groups: [],
  categories: [],
  ...over,
});
const none = { group_ids: [], category_ids: [], family_ids: [], attribute_ids: [] };

// Which products an attribute or family write sends to the background recompute.
describe('completeness job scopes', () => {
  it('names only the links whose answer to "required here?" changed', () => {
    const prev = attribute({
      groups: [
        { _id: 'g1', required: false },
        { _id: 'g2', required: true },
      ],
      categories: [{ _id: 'c1', required: false }],
    });
    expect(
      attributeScope(
        prev,
        attribute({
          ...prev,
          groups: [
            { _id: 'g1', required: true },
            { _id: 'g2', required: true },
          ],
        }),
      ),
    ).toEqual({ ...none, group_ids: ['g1'] });
    expect(attributeScope(prev, attribute({ ...prev, groups: [{ _id: 'g1', required: false }] }))).toEqual({
      ...none,
      group_ids: ['g2'],
    });
    expect(
      attributeScope(
        prev,
        attribute({
          ...prev,
          categories: [
            { _id: 'c1', required: true },
            { _id: 'c2', required: false },
          ],
        }),
      ),
    ).toEqual({ ...none, category_ids: ['c1'] });
    expect(
      attributeScope(prev, attribute({ ...prev, groups: [...prev.groups, { _id: 'g3', required: false }] })),
    ).toBeNull();
  });

  it('names every link and the families naming the attribute when its own required flag flips', () => {
    const prev = attribute({
      groups: [
        { _id: 'g1', required: true },
        { _id: 'g2', required: false },
      ],
      categories: [{ _id: 'c1', required: false }],
    });
    expect(attributeScope(prev, { ...prev, required: true })).toEqual({
      ...none,
      group_ids: ['g2'],
      category_ids: ['c1'],
      attribute_ids: ['a1'],
    });
  });

  it('names every link where it is required when localizable changes (values count per language)', () => {
    const prev = attribute({
      groups: [
        { _id: 'g1', required: true },
        { _id: 'g2', required: false },
      ],
    });
    expect(attributeScope(prev, { ...prev, type_config: { localizable: true } })).toEqual({
      ...none,
      group_ids: ['g1'],
      attribute_ids: ['a1'],
    });
  });

  it('treats create and delete as a change from and to nothing', () => {
    expect(attributeScope(null, attribute({ groups: [{ _id: 'g1', required: false }] }))).toBeNull();
    expect(attributeScope(null, attribute({ required: true, groups: [{ _id: 'g1', required: false }] }))).toEqual({
      ...none,
      group_ids: ['g1'],
      attribute_ids: ['a1'],
    });
    expect(attributeScope(attribute({ categories: [{ _id: 'c1', required: true }] }), null)).toEqual({
      ...none,
      category_ids: ['c1'],
    });
  });

  it("names a family's products only when its groups or attributes changed (order aside)", () => {
    const prev = {
      _id: 'f1',
      attribute_groups: ['g1', 'g2'],
      attributes: [
        { _id: 'a1', required: false },
        { _id: 'a2', required: true },
      ],
    };
    expect(
      familyScope(prev, { ...prev, attribute_groups: ['g2', 'g1'], attributes: [...prev.attributes].reverse() }),
    ).toBeNull();
    expect(
      familyScope(prev, {
        ...prev,
        attributes: [
          { _id: 'a1', required: true },
          { _id: 'a2', required: true },
        ],
      }),
    ).toEqual({ ...none, family_ids: ['f1'] });
    expect(familyScope(prev, { ...prev, attribute_groups: ['g1'] })).toEqual({ ...none, family_ids: ['f1'] });
  });
});
