from django.db import models


class Event(models.Model):
    title = models.CharField(max_length=300)


class Meeting(models.Model):
    event = models.ForeignKey(Event, on_delete=models.CASCADE)
