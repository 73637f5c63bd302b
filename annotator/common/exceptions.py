"""Exceptions shared by the features, with no web stack behind them (services raise these;
the API's exception handler in ``annotator.common.errors`` turns them into responses)."""


class RefusedInput(ValueError):
    """Input refused for a reason the sender can correct (a bad file, a bad line): ``str()``
    says what to fix. The API answers 400 with that message."""
