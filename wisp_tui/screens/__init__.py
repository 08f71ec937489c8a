"""The app's screens: the main screen (`chat`), under a panel (`panel`) or a dialog, one
`ModalScreen[Result]` per module (`dialog` is what they share)."""
