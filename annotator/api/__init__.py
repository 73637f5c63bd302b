"""The REST API under ``/api/`` (Django REST framework): serializers, viewsets and the router.

Views validate input and call one service or selector (``annotator.services`` /
``annotator.selectors``); nothing here writes to the database by itself.
"""
