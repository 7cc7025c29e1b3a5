import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from './api';

/** What the server tells the console before sign-in: switched-on modules, whether a dev login exists. */
export function useConsoleInfo() {
  return useQuery({
    queryKey: ['console-info'],
    queryFn: () => unwrap(api.GET('/public/v1/console')),
    staleTime: Infinity,
  });
}
