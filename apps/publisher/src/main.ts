import { runApp } from '@pim/app';
import { publisherApp } from './app';

void runApp(publisherApp);
