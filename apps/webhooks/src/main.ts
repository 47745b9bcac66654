import { runApp } from '@pim/app';
import { webhooksApp } from './app';

void runApp(webhooksApp);
