# gridalign: one image for the web server (gunicorn) and the Celery worker.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    GRIDALIGN_VAR_DIR=/app/var

WORKDIR /app
RUN useradd --create-home --uid 1000 gridalign

COPY requirements.txt .
RUN pip install -r requirements.txt

COPY . .
# Static files are collected at build time; the key below only lets settings load here.
RUN SECRET_KEY=collectstatic-only-not-a-secret-0123456789abcdef \
    python manage.py collectstatic --noinput \
 && chown -R gridalign /app/var

USER gridalign
EXPOSE 8000
CMD ["gunicorn", "gridalign.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--timeout", "60", "--access-logfile", "-"]
