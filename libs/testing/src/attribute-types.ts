// One attribute of each of the 14 types, a value of each that its attribute refuses and one it
// keeps exactly: the catalog's service tests and the gateway's HTTP tests check the same cases.

/** Attribute definitions by key (select and multiselect get the options `red` and `blue`). */
export const EVERY_TYPE: Record<string, { type: string; type_config?: Record<string, unknown> }> = {
  a_text: { type: 'text', type_config: { max_length: 5 } },
  a_textarea: { type: 'textarea', type_config: { localizable: true } },
  a_number: { type: 'number', type_config: { type: 'integer', min: 0 } },
  a_boolean: { type: 'boolean' },
  a_date: { type: 'date', type_config: { min: '2020-01-01' } },
  a_datetime: { type: 'datetime' },
  a_select: { type: 'select' },
  a_multiselect: { type: 'multiselect' },
  a_price: { type: 'price', type_config: { currencies: ['BRL', 'USD'] } },
  a_metric: { type: 'metric', type_config: { units: ['kg', 'g'] } },
  a_url: { type: 'url' },
  a_email: { type: 'email' },
  a_image: { type: 'image' },
  a_file: { type: 'file' },
};

/** The options select and multiselect attributes of EVERY_TYPE hold. */
export const EVERY_TYPE_OPTIONS = ['red', 'blue'];

/** A value per key that its attribute refuses. */
export const BAD_VALUES: Record<string, unknown> = {
  a_text: 'too long',
  a_textarea: 'not a translate',
  a_number: 1.5,
  a_boolean: 'yes',
  a_date: '2019-12-31',
  a_datetime: '2024-01-31',
  a_select: 'green',
  a_multiselect: ['red', 'red'],
  a_price: { amount: 10, currency: 'EUR' },
  a_metric: { amount: 1, unit: 'lb' },
  a_url: 'ftp://x',
  a_email: 'nobody',
  a_image: 'not a url',
  a_file: 42,
};

/** A value per key that its attribute keeps exactly as given. */
export const GOOD_VALUES: Record<string, unknown> = {
  a_text: 'abc',
  a_textarea: { pt: 'Descrição', en: 'Description' },
  a_number: 12,
  a_boolean: false,
  a_date: '2024-01-31',
  a_datetime: '2024-01-31T12:00:00-03:00',
  a_select: 'red',
  a_multiselect: ['blue', 'red'],
  a_price: { amount: 19.9, currency: 'BRL' },
  a_metric: { amount: 1.25, unit: 'kg' },
  a_url: 'https://example.com/p',
  a_email: 'ana@example.com',
  a_image: 'https://cdn.example.com/1.jpg',
  a_file: 'https://cdn.example.com/1.pdf',
};

/** GOOD_VALUES as the catalog stores them: a datetime in UTC (one form per instant). */
export const STORED_GOOD_VALUES: Record<string, unknown> = { ...GOOD_VALUES, a_datetime: '2024-01-31T15:00:00.000Z' };
