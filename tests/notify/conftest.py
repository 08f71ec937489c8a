from tests.notify.bus import notification_service, session_bus

__all__ = ["notification_service", "session_bus"]
