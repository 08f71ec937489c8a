"""The app's dialogs, one `ModalScreen[Result]` per module."""
