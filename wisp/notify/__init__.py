"""Notifications: one notifier for every request to tell the person something, tried route by
route (the front end that hosts wisp, the terminal's own sequence, the desktop's notification
service) and recorded as ``notification`` (docs/watch.md, "Notifications")."""
