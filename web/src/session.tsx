/** Who is signed in (GET /profile), for the navigation and for pages that only managers may use. */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

export interface Me {
  email: string;
  userId: string;
  /** Holds manage_team: approvals, channels, members' roles, webhooks. */
  manages: boolean;
  /** May approve, reject and assign held posts: a manager, or a reviewer. */
  reviews: boolean;
}

export const MeContext = createContext<Me | undefined>(undefined);

export function useMe(): Me | undefined {
  return useContext(MeContext);
}
