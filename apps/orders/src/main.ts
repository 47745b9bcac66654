import { runApp } from '@pim/app';
import { ordersApp } from './app';

void runApp(ordersApp);
