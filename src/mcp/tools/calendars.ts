import type { DomainDeps } from '../../domain/deps.js';
import {
  calendarViewOptions,
  createShareableCalendar,
  deleteShareableCalendar,
  inAppCalendarUrl,
  listShareableCalendars,
  updateShareableCalendar,
} from '../../domain/calendars/shareable-calendars.js';
import type { AreaTools } from './context.js';

export function calendarTools(deps: DomainDeps): AreaTools {
  return {
    get_calendar_view_options: async () => calendarViewOptions(),
    get_shareable_calendars: async (_args, { principal }) => ({ data: await listShareableCalendars(deps, principal) }),
    get_in_app_calendar_url: async (args, { principal }) => inAppCalendarUrl(deps, principal, args),
    create_public_calendar_link: async (args, { principal }) => ({
      data: await createShareableCalendar(deps, principal, args),
    }),
    update_shareable_calendar: async (args, { principal }) => ({
      data: await updateShareableCalendar(deps, principal, args),
    }),
    delete_shareable_calendar: async (args, { principal }) => deleteShareableCalendar(deps, principal, args),
  };
}
