import { z } from 'zod';
import { parseAllowList } from './address.policy';
import { parseSchedule } from './retry.schedule';

/** A text setting parsed by `parse`, its error a configuration issue naming the variable. */
const parsed = <T>(fallback: string, parse: (text: string) => T) =>
  z
    .string()
    .default(fallback)
    .transform((v, ctx) => {
      try {
        return parse(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    });

/** An operator allow list of non-public ranges (`127.0.0.0/8,::1/128`); empty by default. */
export const allowListSetting = () => parsed('', parseAllowList);

/** A retry schedule: durations with ms, s, m or h, comma-separated (`5s,5m,30m`). */
export const scheduleSetting = (fallback: string) => parsed(fallback, parseSchedule);
