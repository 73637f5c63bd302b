"""Tokens for scripts: ``POST /api/auth/token/`` (username + password → a new key) and the
caller's own tokens (``GET /api/auth/tokens/``, ``DELETE /api/auth/tokens/{id}/``)."""

from __future__ import annotations

from django.contrib.auth import authenticate
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from annotator.accounts.services.tokens import create_token, revoke_token
from annotator.common.schema import ERRORS, ID_LOOKUP, READ_ERRORS
from annotator.models import ApiToken


class TokenRequestSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=1024, style={"input_type": "password"})
    name = serializers.CharField(
        max_length=100, required=False, allow_blank=True, help_text="a label, e.g. 'laptop'"
    )


class NewTokenSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="The key: send it as 'Authorization: Token <key>'.")
    id = serializers.IntegerField()
    name = serializers.CharField()
    prefix = serializers.CharField()


class ApiTokenSerializer(serializers.ModelSerializer):
    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "created_at", "last_used_at"]


class ObtainTokenView(APIView):
    """Exchange a username and password for a new API token (shown once)."""

    authentication_classes: list = []  # a password login: no session, so no CSRF to check
    permission_classes = [AllowAny]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "token"

    @extend_schema(
        operation_id="auth_token_create",
        request=TokenRequestSerializer,
        responses={201: NewTokenSerializer, **ERRORS},
        examples=[
            OpenApiExample(
                "Log in",
                value={"username": "lead", "password": "gridalign-lead", "name": "laptop"},
                request_only=True,
            ),
            OpenApiExample(
                "A new token",
                value={"token": "q3Zt…", "id": 7, "name": "laptop", "prefix": "q3Zt8aKc"},
                response_only=True,
                status_codes=["201"],
            ),
        ],
        auth=[],
    )
    def post(self, request):
        data = TokenRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = authenticate(
            request._request,
            username=data.validated_data["username"],
            password=data.validated_data["password"],
        )
        if user is None or not user.is_active:
            return Response(
                {"error": "username or password is wrong (or the account is deactivated)"},
                status=status.HTTP_400_BAD_REQUEST,
            )
        try:
            token, key = create_token(user=user, name=data.validated_data.get("name", ""))
        except ValueError as exc:
            return Response({"error": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(
            {"token": key, "id": token.pk, "name": token.name, "prefix": token.prefix},
            status=status.HTTP_201_CREATED,
        )


@extend_schema_view(
    list=extend_schema(
        summary="Your API tokens (never their keys)",
        examples=[
            OpenApiExample(
                "Tokens",
                value={
                    "id": 7,
                    "name": "laptop",
                    "prefix": "q3Zt8aKc",
                    "created_at": "2026-11-23T09:00:00Z",
                    "last_used_at": "2026-11-23T09:30:00Z",
                },
                response_only=True,
            )
        ],
    ),
    destroy=extend_schema(
        summary="Revoke one of your tokens",
        responses={
            204: OpenApiResponse(
                description="revoked: the key no longer authenticates",
                examples=[OpenApiExample("Revoked", value=None, response_only=True)],
            ),
            **READ_ERRORS,
        },
    ),
)
class ApiTokenViewSet(mixins.ListModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet):
    lookup_value_regex = ID_LOOKUP
    serializer_class = ApiTokenSerializer
    permission_classes = [IsAuthenticated]
    pagination_class = None

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return ApiToken.objects.none()
        return ApiToken.objects.filter(user=self.request.user)

    def perform_destroy(self, instance: ApiToken) -> None:
        revoke_token(user=self.request.user, token_id=instance.pk)
