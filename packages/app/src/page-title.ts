/** Each page names itself in the browser's tab and history, so tabs and bookmarks tell apart. */
import { useEffect } from 'preact/hooks';

export function usePageTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · PoolParty`;
  }, [title]);
}
