import { migrateApp } from '@pim/app';
import { readConfig } from './config';
import { dataSourceOptions } from './data-source';

void migrateApp({ name: 'publisher', dir: __dirname, config: readConfig, dataSource: dataSourceOptions });
