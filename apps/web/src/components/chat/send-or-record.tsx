/** The composer's last button: Send while there is text (or an edit), else the microphone. */
import { SendHorizontal } from 'lucide-react';
import type { PreparedFile } from '@/client/attachments/prepared-file';
import { VoiceRecorder } from '@/components/attachments/voice-recorder';
import { Button } from '@/components/ui/button';

export function SendOrRecord(props: {
  empty: boolean;
  editing: boolean;
  disabled: boolean;
  onVoice: ((file: PreparedFile) => void) | undefined;
}) {
  if (props.empty && !props.editing && props.onVoice) return <VoiceRecorder onRecorded={props.onVoice} />;
  return (
    <Button
      type="submit"
      size="icon"
      aria-label="Send"
      className="size-11 shrink-0 rounded-full"
      disabled={props.disabled}
    >
      <SendHorizontal className="!size-5" aria-hidden />
    </Button>
  );
}
