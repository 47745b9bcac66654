import { mergeReport, withSection } from './shared';

const doc = [
  '# Benchmarks',
  '',
  'Produced on day 1.',
  '',
  '## Machine',
  '',
  'old machine',
  '',
  '## At a glance',
  '',
  'a summary written by hand',
  '',
  '## Webhook delivery',
  '',
  'old deliveries',
  '',
  '## Soak',
  '',
  'soak results',
  '',
].join('\n');

describe('benchmark documents', () => {
  it('merges a report: its sections replace those of the same heading, every other section stays in place', () => {
    const report = [
      '# Benchmarks',
      '',
      'Produced on day 2.',
      '',
      '## Machine',
      '',
      'new machine',
      '',
      '## Webhook delivery',
      '',
      'new deliveries',
      '',
      '## Conservation',
      '',
      'new section',
    ].join('\n');
    expect(mergeReport(doc, report)).toBe(
      [
        '# Benchmarks',
        '',
        'Produced on day 2.',
        '',
        '## Machine',
        '',
        'new machine',
        '',
        '## At a glance',
        '',
        'a summary written by hand',
        '',
        '## Webhook delivery',
        '',
        'new deliveries',
        '',
        '## Soak',
        '',
        'soak results',
        '',
        '## Conservation',
        '',
        'new section',
        '',
      ].join('\n'),
    );
  });

  it('writes a report alone into an empty document', () => {
    expect(mergeReport('', '# B\n\n## One\n\nx')).toBe('# B\n\n## One\n\nx\n');
  });

  it('replaces one section by its title', () => {
    expect(withSection(doc, 'Soak', '## Soak\n\nnew soak\n')).toContain('## Soak\n\nnew soak\n');
    expect(withSection(doc, 'Soak', '## Soak\n\nnew soak\n')).toContain('a summary written by hand');
  });
});
