"""People's tables: a cancelled status, and the claim (token, attempts) and last message (enqueued_at) by which
the sweeper re-sends queued tables and re-queues those whose worker died (league/tables/services.py)."""

import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('league', '0013_verified_email'),
    ]

    operations = [
        migrations.AddField(
            model_name='table',
            name='attempts',
            field=models.PositiveSmallIntegerField(default=0, editable=False),
        ),
        migrations.AddField(
            model_name='table',
            name='claim_token',
            field=models.CharField(blank=True, editable=False, max_length=32),
        ),
        migrations.AddField(
            model_name='table',
            name='enqueued_at',
            field=models.DateTimeField(default=django.utils.timezone.now, editable=False),
        ),
        migrations.AlterField(
            model_name='table',
            name='status',
            field=models.CharField(choices=[('queued', 'queued'), ('running', 'running'), ('finished', 'finished'), ('failed', 'failed'), ('cancelled', 'cancelled')], db_index=True, default='queued', max_length=10),
        ),
    ]
