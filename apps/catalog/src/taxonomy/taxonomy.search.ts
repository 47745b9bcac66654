import { searchTextOf } from '@pim/records';

/** What `_search` matches in every taxonomy record: its code and every language of its name. */
export function taxonomySearchText(input: { code: string; name: Record<string, string> }): { search_text: string } {
  return { search_text: searchTextOf(input.code, input.name) };
}
